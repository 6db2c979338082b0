// toml++ is compiled header-only into this file with its assertions off whatever the build configuration: with them
// on its parser assert()s on some malformed files (e.g. `a = [}`, or `[` and a line break), which would abort the
// daemon at start-up instead of reporting the file. NDEBUG alone is not enough: toml++ then turns each assertion into
// `__builtin_assume`, and a malformed file breaks that promise (undefined behaviour). With TOML_ASSERT empty and
// NDEBUG undefined, each such place falls through to the parser's own check, which reports the error with its line
// and column. Debian's libtomlplusplus.so is not linked: it is built with its assertions on.
#undef NDEBUG
#define TOML_ASSERT(expr) static_cast<void>(0)
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#define TOML_ENABLE_FORMATTERS 0

#include "toml_reader.h"

#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace {

/// The C view and the storage it points into.
struct Document : tr_document {
    std::vector<tr_node> node_storage;
    std::string strings;

    /// Points the C view at the storage, once it no longer grows.
    void publish() {
        nodes = node_storage.data();
        node_count = node_storage.size();
        text = strings.data();
        text_length = strings.size();
    }
};

size_t append(Document &document, std::string_view text) {
    size_t offset = document.strings.size();
    document.strings.append(text);
    return offset;
}

void add(Document &document, const toml::node &node, std::string_view key, const toml::source_region &where);

void add_children(Document &document, size_t index, const toml::node &node) {
    uint32_t count = 0;
    if (const toml::table *table = node.as_table()) {
        for (auto &&[key, value] : *table) {
            add(document, value, key.str(), key.source());
            count += 1;
        }
    } else if (const toml::array *array = node.as_array()) {
        for (const toml::node &value : *array) {
            add(document, value, {}, value.source());
            count += 1;
        }
    }
    document.node_storage[index].child_count = count;
}

void add(Document &document, const toml::node &node, std::string_view key, const toml::source_region &where) {
    tr_node entry{};
    entry.line = where.begin.line;
    entry.column = where.begin.column;
    entry.key_offset = append(document, key);
    entry.key_length = key.size();
    switch (node.type()) {
    case toml::node_type::table: entry.kind = TR_TABLE; break;
    case toml::node_type::array: entry.kind = TR_ARRAY; break;
    case toml::node_type::string: {
        entry.kind = TR_STRING;
        const std::string &value = node.as_string()->get();
        entry.string_offset = append(document, value);
        entry.string_length = value.size();
        break;
    }
    case toml::node_type::integer:
        entry.kind = TR_INTEGER;
        entry.integer = node.as_integer()->get();
        break;
    case toml::node_type::floating_point:
        entry.kind = TR_FLOAT;
        entry.floating = node.as_floating_point()->get();
        break;
    case toml::node_type::boolean:
        entry.kind = TR_BOOLEAN;
        entry.boolean = node.as_boolean()->get() ? 1 : 0;
        break;
    default: entry.kind = TR_OTHER; break;
    }
    size_t index = document.node_storage.size();
    document.node_storage.push_back(entry);
    add_children(document, index, node);
}

} // namespace

extern "C" tr_document *tr_parse(const char *bytes, size_t length) {
    Document *document = new (std::nothrow) Document();
    if (document == nullptr) return nullptr;
    try {
        toml::parse_result result = toml::parse(std::string_view(bytes, length));
        if (!result) {
            const toml::parse_error &error = result.error();
            document->failed = 1;
            document->error_offset = append(*document, error.description());
            document->error_length = error.description().size();
            document->error_line = error.source().begin.line;
            document->error_column = error.source().begin.column;
        } else {
            document->node_storage.push_back(tr_node{TR_TABLE, 0, 1, 1, 0, 0, 0, 0, 0, 0.0, 0});
            add_children(*document, 0, result.table());
        }
    } catch (const std::bad_alloc &) {
        delete document;
        return nullptr;
    }
    document->publish();
    return document;
}

extern "C" void tr_document_free(tr_document *view) {
    delete static_cast<Document *>(view);
}
