#define _GNU_SOURCE
#include "runtime_shims.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libintl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

static int signal_pipe_write_end = -1;
/// The signals ir_signal_pipe_open catches: the set is written first, then published through catches_signals
/// (release), which readers load (acquire) before they read the set. The daemon catches before it starts a thread; a
/// test process catches while other tests' threads make bus calls.
static sigset_t caught_signals;
static int catches_signals = 0;

static void write_signal_number(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    // A full pipe (65,536 unread signals) drops this one: the watcher has plenty to act on already.
    ssize_t ignored = write(signal_pipe_write_end, &byte, 1);
    (void)ignored;
    errno = saved;
}

int ir_signal_pipe_open(const int *signals, size_t count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -errno;
    signal_pipe_write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = write_signal_number;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigemptyset(&caught_signals);
    for (size_t i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -errno;
        sigaddset(&caught_signals, signals[i]);
    }
    __atomic_store_n(&catches_signals, count > 0, __ATOMIC_RELEASE);
    return ends[0];
}

int ir_defer_caught_signals(sigset_t *previous) {
    if (!__atomic_load_n(&catches_signals, __ATOMIC_ACQUIRE)) return 0;
    return pthread_sigmask(SIG_BLOCK, &caught_signals, previous) == 0;
}

void ir_restore_signal_mask(int deferred, const sigset_t *previous) {
    if (deferred) pthread_sigmask(SIG_SETMASK, previous, NULL);
}

void ir_exit_once(int status) {
    static pthread_mutex_t exiting = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&exiting);
    exit(status);
}

void ir_use_one_malloc_arena(void) {
    mallopt(M_ARENA_MAX, 1);
}

/// The tunable that turns the per-thread caches off; the loader reads GLIBC_TUNABLES at exec only.
static const char no_thread_caches[] = "glibc.malloc.tcache_count=0";
/// What GLIBC_TUNABLES was before the exec that added the tunable ("" for unset): its presence marks that exec.
static const char tunables_given[] = "INTERVALD_GIVEN_GLIBC_TUNABLES";

/// GLIBC_TUNABLES as it was before the exec that added the tunable ("" for unset), and no marker.
static void put_back_tunables(const char *given) {
    if (*given != '\0') setenv("GLIBC_TUNABLES", given, 1); else unsetenv("GLIBC_TUNABLES");
    unsetenv(tunables_given);
}

int ir_malloc_without_thread_caches(const char *path, char *const argv[]) {
    const char *given = getenv(tunables_given);
    if (given != NULL) {
        // Exec'd with the tunable: the environment as it was, for the processes this one starts.
        put_back_tunables(given);
        return 1;
    }
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (tunables != NULL && strstr(tunables, "glibc.malloc.tcache_count") != NULL) return 0;  // The user's choice.
    if (path == NULL) return -ENOENT;
    const char *before = tunables != NULL ? tunables : "";
    const size_t size = strlen(before) + 1 + sizeof no_thread_caches;
    char *with = malloc(size);
    if (with == NULL) return -ENOMEM;
    snprintf(with, size, "%s%s%s", before, *before != '\0' ? ":" : "", no_thread_caches);
    if (setenv(tunables_given, before, 1) != 0 || setenv("GLIBC_TUNABLES", with, 1) != 0) {
        const int failure = errno;
        free(with);
        put_back_tunables(before);
        return -failure;
    }
    free(with);
    execv(path, argv);
    // Not exec'd (the binary replaced meanwhile, say): on as it was, with the caches.
    const int failure = errno;
    put_back_tunables(before);
    return -failure;
}

/// Whether the object's dynamic section asks for text relocations: its read-only segments were written at load.
static int has_text_relocations(const struct dl_phdr_info *info) {
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
             entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL) return 1;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

/// Whether the object is the vDSO: its first segment is where the kernel mapped it (AT_SYSINFO_EHDR).
static int is_vdso(const struct dl_phdr_info *info) {
    const ElfW(Addr) vdso = (ElfW(Addr))getauxval(AT_SYSINFO_EHDR);
    for (size_t i = 0; vdso != 0 && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type == PT_LOAD && info->dlpi_addr + segment->p_vaddr - segment->p_offset == vdso) return 1;
    }
    return 0;
}

/// Whether the object is the dynamic loader: loaded where the kernel put the program's interpreter (AT_BASE).
static int is_loader(const struct dl_phdr_info *info) {
    const ElfW(Addr) loader = (ElfW(Addr))getauxval(AT_BASE);
    return loader != 0 && info->dlpi_addr == loader;
}

static int release_object(struct dl_phdr_info *info, size_t size, void *released) {
    (void)size;
    if (is_vdso(info)) return 0;
    // The loader's code runs again at every thread's start and end (its TLS), and thread pools start threads all
    // along: given back, its pages came back within minutes, as growth.
    if (is_loader(info)) return 0;
    if (has_text_relocations(info)) return 0;
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W)) continue;
        const uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~(page - 1);
        const uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_memsz + page - 1) & ~(page - 1);
        if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) *(size_t *)released += end - start;
    }
    return 0;
}

size_t ir_release_read_only_pages(void) {
    size_t released = 0;
    dl_iterate_phdr(release_object, &released);
    return released;
}

const char *ir_bindtextdomain(const char *domain, const char *directory) {
        return bindtextdomain(domain, directory);
}

const char *ir_bind_textdomain_codeset(const char *domain, const char *codeset) {
        return bind_textdomain_codeset(domain, codeset);
}

const char *ir_dgettext(const char *domain, const char *msgid) {
        return dgettext(domain, msgid);
}

const char *ir_dngettext(const char *domain, const char *msgid, const char *msgid_plural, unsigned long count) {
        return dngettext(domain, msgid, msgid_plural, count);
}
