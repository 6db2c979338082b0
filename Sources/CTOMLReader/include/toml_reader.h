#ifndef INTERVALD_TOML_READER_H
#define INTERVALD_TOML_READER_H

// A C view of a TOML document parsed by toml++: a flat array of nodes in document order (each table's and array's
// children follow it), with every string in one buffer. Swift copies what it needs and frees the document.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TR_TABLE,
    TR_ARRAY,
    TR_STRING,
    TR_INTEGER,
    TR_FLOAT,
    TR_BOOLEAN,
    /// Dates and times: valid TOML that no setting takes.
    TR_OTHER,
} tr_kind;

typedef struct {
    tr_kind kind;
    /// Direct children of a table or an array.
    uint32_t child_count;
    /// Where the entry begins (1-based): its key in a table, the value in an array; for a table, where it was opened.
    uint32_t line;
    uint32_t column;
    /// The value's own text, from its first character to just after its last (lines 1-based, columns in code points,
    /// 1-based). For a table: its header (`[a.b]` for `a` too, which it made), or the key that made it (`a.b = 1`).
    uint32_t value_line;
    uint32_t value_column;
    uint32_t end_line;
    uint32_t end_column;
    /// Non-zero for a table written inline (`{ a = 1 }`).
    int inline_table;
    /// The key in the enclosing table (empty in arrays and for the root), and a string value: offsets into `text`.
    size_t key_offset;
    size_t key_length;
    size_t string_offset;
    size_t string_length;
    int64_t integer;
    double floating;
    int boolean;
} tr_node;

typedef struct {
    /// Non-zero when the text is not TOML: then `error` (offsets into `text`), `error_line` and `error_column` say why
    /// and where, and there are no nodes.
    int failed;
    size_t error_offset;
    size_t error_length;
    uint32_t error_line;
    uint32_t error_column;
    const tr_node *nodes;
    size_t node_count;
    const char *text;
    size_t text_length;
} tr_document;

/// Parses `length` bytes of TOML. Never aborts: toml++ is compiled into this target with its assertions off.
/// Returns NULL only when memory runs out. Free with `tr_document_free`.
tr_document *tr_parse(const char *bytes, size_t length);

void tr_document_free(tr_document *document);

#ifdef __cplusplus
}
#endif

#endif
