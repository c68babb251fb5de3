/*
 * Key expressions: validation, in-place canonization and set relations (intersects, includes),
 * bit-for-bit with zenoh-keyexpr 1.10.2. Every function borrows its strings for the duration of
 * the call only, takes (pointer, length) rather than NUL-terminated text, allocates nothing and
 * never recurses, so it is safe on a small MCU stack and on hostile 64 KiB inputs alike.
 */
#ifndef ZM_KEYEXPR_KEYEXPR_H
#define ZM_KEYEXPR_KEYEXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "util/common.h"

/**
 * Checks that s is a valid key expression in canonical form.
 *
 * The rules are those of zenoh-keyexpr's `keyexpr::new` (spec section 9): s is valid UTF-8,
 * non-empty, made of `/`-separated non-empty chunks; `*` and `**` only as whole chunks; inside
 * other chunks `$` only as `$*`, never followed by `$`, and a chunk is never exactly `$*`; no
 * `#` nor `?`; no `**` followed by a `*` or `**` chunk. Chunks starting with `@` are verbatim.
 *
 * @param s    borrowed; need not be NUL-terminated; may be NULL when len is 0.
 * @param len  length in bytes.
 * @return Z_OK, or ZM_E_KEYEXPR. Cost: O(len).
 */
ZM_NODISCARD z_result_t zm_keyexpr_validate(const char *s, size_t len);

/**
 * Rewrites s in place into canonical form, then validates it, exactly like zenoh-keyexpr's
 * `OwnedKeyExpr::autocanonize`: `**` runs fold into one `**`, `**` followed by `*` chunks moves
 * after them (`**`/`*` becomes `*`/`**`), a chunk made only of `$*` becomes `*`, and `$*$*`
 * inside a chunk becomes `$*` (with the reference's own limits: see the implementation notes).
 * Input the reference rejects or cannot process fails here with ZM_E_KEYEXPR.
 *
 * @param s    borrowed, modified in place; the result never grows.
 * @param len  in: length of s; out, on success only: length of the canonical form.
 * @return Z_OK, or ZM_E_KEYEXPR (then the bytes of s are unspecified and *len is unchanged).
 *         Cost: O(len).
 */
ZM_NODISCARD z_result_t zm_keyexpr_canonize(char *s, size_t *len);

/**
 * True when some key (a key expression without wildcards) is matched by both a and b:
 * zenoh-keyexpr's `keyexpr::intersects`.
 *
 * Both must be valid canonical key expressions (zm_keyexpr_validate); on other input the answer
 * is meaningless but the call stays memory-safe. Both strings are borrowed for the call only.
 * Cost: no allocation, O(1) stack, no recursion. Linear in alen + blen unless a run of chunks
 * between two `**` (or of bytes between two `$*`) has to be searched for in the other
 * expression; then each chunk of a meets each chunk of b at most once, so the work is
 * O(alen * blen) byte steps at worst. Measured on a desktop: about 3 s for two hostile 64 KiB
 * expressions, about 40 ms for a 300-byte one (say, a local declaration) against a hostile
 * 64 KiB one. The reference's backtracking is exponential.
 */
bool zm_keyexpr_intersects(const char *a, size_t alen, const char *b, size_t blen);

/**
 * True when a includes b, as decided by zenoh-keyexpr's `keyexpr::includes`: a's chunks match
 * b's chunks as a pattern over b's text, `**` in a absorbing any run of non-verbatim chunks of b
 * (including b's own `*`, `$*` and `**` chunks). This is the reference's relation, which is
 * slightly narrower than set inclusion: `*`/`**` does not include `**`/`x`, for instance.
 *
 * Same input contract, ownership and cost bound as zm_keyexpr_intersects.
 */
bool zm_keyexpr_includes(const char *a, size_t alen, const char *b, size_t blen);

/**
 * True when s contains a wildcard (`*`, `**` or `$*`), i.e. names more than one key.
 * s is borrowed. Cost: O(len).
 */
bool zm_keyexpr_is_wild(const char *s, size_t len);

/**
 * Finds the longest wildcard-free prefix of s made of whole chunks (zenoh-keyexpr's
 * `get_nonwild_prefix`): all of s when it has no wildcard, up to the `/` before the first chunk
 * holding a wildcard otherwise, and nothing when that is the first chunk.
 *
 * @param s           borrowed, a valid key expression.
 * @param prefix_len  out: the prefix is s[0 .. *prefix_len); set to 0 when there is none.
 * @return true when a non-empty prefix exists. Cost: O(len).
 */
bool zm_keyexpr_nonwild_prefix(const char *s, size_t len, size_t *prefix_len);

/**
 * Writes prefix immediately followed by suffix into out, with no separator and no validation:
 * the resolution of a wire key expression (a declared prefix plus the suffix that came with the
 * message). Validate the result with zm_keyexpr_validate where the caller needs it.
 *
 * @param out      caller's buffer of cap bytes; not NUL-terminated by this call.
 * @param out_len  out, on success: prefix_len + suffix_len.
 * @param prefix   borrowed; may be out itself (appending a suffix in place).
 * @param suffix   borrowed; must not overlap out.
 * @return Z_OK, or ZM_E_NO_SPACE (out untouched).
 */
ZM_NODISCARD z_result_t zm_keyexpr_concat(char *out, size_t cap, size_t *out_len,
                                          const char *prefix, size_t prefix_len,
                                          const char *suffix, size_t suffix_len);

/**
 * Writes prefix `/` suffix into out, canonizes and validates it: zenoh-keyexpr's
 * `keyexpr::join`: the joint is canonized like the rest, so a prefix ending in `**` and a
 * suffix starting with `*` come out swapped into canonical order.
 *
 * @param out      caller's buffer of cap bytes; not NUL-terminated by this call.
 * @param out_len  out, on success: length of the canonical result.
 * @param prefix   borrowed; may be out itself.
 * @param suffix   borrowed; must not overlap out.
 * @return Z_OK, ZM_E_NO_SPACE (out untouched) or ZM_E_KEYEXPR (out's bytes unspecified).
 */
ZM_NODISCARD z_result_t zm_keyexpr_join(char *out, size_t cap, size_t *out_len,
                                        const char *prefix, size_t prefix_len,
                                        const char *suffix, size_t suffix_len);

#endif /* ZM_KEYEXPR_KEYEXPR_H */
