#ifndef INTERVALD_RUNTIME_SHIMS_H
#define INTERVALD_RUNTIME_SHIMS_H

#include <signal.h>
#include <stddef.h>

/// Catches `signals` from now on with a handler that writes each signal's number, as one byte, into a pipe, and
/// returns the pipe's read end (non-blocking, close-on-exec), or -errno. Called first thing in `main`, before any
/// thread or bus name exists, it leaves no window in which a signal takes its default action; what arrives before
/// anyone reads the pipe waits in it. A handler, unlike SIG_IGN or a blocked mask, is reset by exec, so children
/// (hooks, an autospawned speech-dispatcher or PulseAudio) get the default actions. Call once per process.
int ir_signal_pipe_open(const int *signals, size_t count);

/// Blocks the signals ir_signal_pipe_open catches on the calling thread, storing its mask in `previous`; nothing when
/// it catches none. While blocked, the kernel hands such a signal to another thread or keeps it pending, so that its
/// handler interrupts no system call of this thread: libsystemd 252 (Debian 12) fails `sd_bus_call` with -EINTR when a
/// handler interrupts its poll, and leaves the reply it waited for unread.
/// Returns whether it deferred them (and stored the mask in `previous`): pass that on to ir_restore_signal_mask, so
/// that signals caught meanwhile on another thread do not restore a mask never stored.
int ir_defer_caught_signals(sigset_t *previous);

/// Restores the mask ir_defer_caught_signals stored, if it deferred; a signal that waited is handled now.
void ir_restore_signal_mask(int deferred, const sigset_t *previous);

/// `exit(status)` for the first caller only; any later caller, on whatever thread, waits for the process to end.
/// Two threads in exit() at once would run the atexit handlers and destructors twice, concurrently.
__attribute__((noreturn)) void ir_exit_once(int status);

/// One malloc arena for every thread: mallopt(M_ARENA_MAX, 1) (<malloc.h>, which the Glibc module does not export).
void ir_use_one_malloc_arena(void);

/// Turns glibc's per-thread malloc caches (tcache) off for this process: each of a dozen threads would otherwise keep
/// freed blocks of its own, and the heap grows around them. Only the loader reads the setting (GLIBC_TUNABLES), at an
/// exec: the first call execs the process's own binary (`path`) again with `argv`, the tunable added; in the new image,
/// the call puts GLIBC_TUNABLES back as it was given, for the processes this one starts. Returns 1 there; 0 when
/// GLIBC_TUNABLES already sets tcache_count (left as the user chose); -errno when the exec failed, -ENOENT when `path`
/// is NULL (the process goes on with the caches). Call it first thing in `main`, before any thread, handler or open
/// file exists.
int ir_malloc_without_thread_caches(const char *path, char *const argv[]);

/// Drops this process's mappings of the pages of every loaded object's read-only segments (its code, its read-only
/// data), which are never written: a page used again is mapped again from the page cache (a minor fault), the others
/// stop counting as resident. Objects with text relocations, whose read-only pages were written, the vDSO and the
/// dynamic loader (run at every thread's start and end) are left alone. It runs inside dl_iterate_phdr, under the
/// loader's lock, so that no object is unloaded meanwhile. Returns how many bytes of segments it dropped.
size_t ir_release_read_only_pages(void);

/// gettext's text-domain calls (<libintl.h>, which the Glibc module does not export), for the one text domain.
/// Each returns what the glibc function of the same name without `ir_` returns.
const char *ir_bindtextdomain(const char *domain, const char *directory);
const char *ir_bind_textdomain_codeset(const char *domain, const char *codeset);
const char *ir_dgettext(const char *domain, const char *msgid);
const char *ir_dngettext(const char *domain, const char *msgid, const char *msgid_plural, unsigned long count);

#endif
