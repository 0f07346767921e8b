/* SPDX-License-Identifier: MIT */
/* result.c - CallToolResult builder with the spec's exact field names.
 *
 * Content blocks are jansson objects inside the result's content array; the
 * opaque mcp_content_t handle is that object, so refinements are plain member
 * sets with no lookup.
 */
#include "tools/result_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/feature.h"
#include "util/base64.h"
#include "json/load.h"

#define BLOCK(c) ((json_t *)(c))

bool mcp__result_init(mcp_result_t *r) {
  /* content is made when the first block is added: a declared tool's
   * result has none (its text mirror is written while encoding) */
  memset(r, 0, sizeof *r);
  return true;
}

void mcp__result_clear(mcp_result_t *r) {
  json_decref(r->content);
  json_decref(r->structured);
  mcp__buf_free(&r->structured_text);
  json_decref(r->meta);
  memset(r, 0, sizeof *r);
}

mcp_status mcp_result_new(mcp_result_t **out) {
  if (out == NULL)
    return MCP_ERR_INVALID_ARG;
  *out = malloc(sizeof **out);
  if (*out == NULL)
    return MCP_ERR_NOMEM;
  if (!mcp__result_init(*out)) {
    free(*out);
    *out = NULL;
    return MCP_ERR_NOMEM;
  }
  return MCP_OK;
}

void mcp_result_free(mcp_result_t *r) {
  if (r == NULL)
    return;
  mcp__result_clear(r);
  free(r);
}

/* Appends block (stolen) and returns it as a handle, or NULL. */
static mcp_content_t *append(mcp_result_t *r, json_t *block) {
  if (r == NULL) {
    json_decref(block);
    return NULL;
  }
  if (block == NULL ||
      (r->content == NULL && (r->content = json_array()) == NULL) ||
      json_array_append_new(r->content, block) != 0) {
    if (block != NULL && r->content == NULL)
      json_decref(block);
    r->failed = true;
    return NULL;
  }
  return (mcp_content_t *)block;
}

/* A stealing setter got NULL: remembers which member could not be built
 * (see result_internal.h). */
static mcp_status lost(mcp_result_t *r, const char *member) {
  if (r != NULL && r->lost == NULL)
    r->lost = member;
  return MCP_ERR_INVALID_ARG;
}

mcp_content_t *mcp_result_add_text(mcp_result_t *r, const char *text) {
  if (r == NULL || text == NULL)
    return NULL;
  r->has_text = true;
  return append(r, json_pack("{s:s,s:s}", "type", "text", "text", text));
}

static mcp_content_t *add_vtextf(mcp_result_t *r, const char *fmt, va_list ap) {
  char *text = NULL;
  if (vasprintf(&text, fmt, ap) < 0) {
    r->failed = true;
    return NULL;
  }
  mcp_content_t *c = mcp_result_add_text(r, text);
  free(text);
  return c;
}

mcp_content_t *mcp_result_add_textf(mcp_result_t *r, const char *fmt, ...) {
  if (r == NULL || fmt == NULL)
    return NULL;
  va_list ap;
  va_start(ap, fmt);
  mcp_content_t *c = add_vtextf(r, fmt, ap);
  va_end(ap);
  return c;
}

/* An image or audio block (type) with base64 data. */
static json_t *media_block(const char *type, const char *base64,
                           const char *mime_type) {
  return json_pack("{s:s,s:s,s:s}", "type", type, "data", base64, "mimeType",
                   mime_type);
}

static mcp_content_t *add_media(mcp_result_t *r, const char *type,
                                const char *base64, const char *mime_type) {
  if (r == NULL || base64 == NULL || mime_type == NULL ||
      !mcp__base64_is_valid(base64, strlen(base64)))
    return NULL;
  return append(r, media_block(type, base64, mime_type));
}

static mcp_content_t *add_media_bytes(mcp_result_t *r, const char *type,
                                      const void *data, size_t len,
                                      const char *mime_type) {
  if (r == NULL || (data == NULL && len) || mime_type == NULL)
    return NULL;
  char *b64 = mcp__base64_encode(data, len);
  if (b64 == NULL) {
    r->failed = true;
    return NULL;
  }
  mcp_content_t *c = append(r, media_block(type, b64, mime_type));
  free(b64);
  return c;
}

mcp_content_t *mcp_result_add_image(mcp_result_t *r, const char *base64,
                                    const char *mime_type) {
  return add_media(r, "image", base64, mime_type);
}

mcp_content_t *mcp_result_add_image_bytes(mcp_result_t *r, const void *data,
                                          size_t len, const char *mime_type) {
  return add_media_bytes(r, "image", data, len, mime_type);
}

mcp_content_t *mcp_result_add_audio(mcp_result_t *r, const char *base64,
                                    const char *mime_type) {
  return add_media(r, "audio", base64, mime_type);
}

mcp_content_t *mcp_result_add_audio_bytes(mcp_result_t *r, const void *data,
                                          size_t len, const char *mime_type) {
  return add_media_bytes(r, "audio", data, len, mime_type);
}

mcp_content_t *mcp_result_add_resource_link(mcp_result_t *r, const char *uri,
                                            const char *name) {
  if (r == NULL || uri == NULL || name == NULL)
    return NULL;
  return append(r, json_pack("{s:s,s:s,s:s}", "type", "resource_link", "uri",
                             uri, "name", name));
}

/* Appends an embedded resource block: {uri, mimeType?, key: value}. */
static mcp_content_t *add_embedded(mcp_result_t *r, const char *uri,
                                   const char *mime_type, const char *key,
                                   const char *value) {
  json_t *res = json_pack("{s:s}", "uri", uri);
  if (res && mime_type)
    json_object_set_new(res, "mimeType", json_string(mime_type));
  if (res)
    json_object_set_new(res, key, json_string(value));
  return append(r, json_pack("{s:s,s:o}", "type", "resource", "resource", res));
}

mcp_content_t *mcp_result_add_text_resource(mcp_result_t *r, const char *uri,
                                            const char *text,
                                            const char *mime_type) {
  if (r == NULL || uri == NULL || text == NULL)
    return NULL;
  return add_embedded(r, uri, mime_type, "text", text);
}

mcp_content_t *mcp_result_add_blob_resource(mcp_result_t *r, const char *uri,
                                            const void *data, size_t len,
                                            const char *mime_type) {
  if (r == NULL || uri == NULL || (data == NULL && len))
    return NULL;
  char *b64 = mcp__base64_encode(data, len);
  if (b64 == NULL) {
    r->failed = true;
    return NULL;
  }
  mcp_content_t *c = add_embedded(r, uri, mime_type, "blob", b64);
  free(b64);
  return c;
}

mcp_content_t *mcp_result_add_content_json(mcp_result_t *r, json_t *block) {
  if (block == NULL) {
    lost(r, "content");
    return NULL;
  }
  if (!json_is_object(block) ||
      !json_is_string(json_object_get(block, "type"))) {
    json_decref(block);
    return NULL;
  }
  if (r &&
      strcmp(json_string_value(json_object_get(block, "type")), "text") == 0)
    r->has_text = true;
  return append(r, block);
}

mcp_status mcp_result_set_structured(mcp_result_t *r, json_t *object) {
  if (object == NULL)
    return lost(r, "structuredContent");
  if (r == NULL || !json_is_object(object)) {
    json_decref(object);
    return MCP_ERR_INVALID_ARG;
  }
  json_decref(r->structured);
  r->structured = object;
  mcp__buf_reset(&r->structured_text);
  return MCP_OK;
}

bool mcp__result_has_structured(const mcp_result_t *r) {
  return r->structured != NULL || r->structured_text.len > 0;
}

bool mcp__result_structured_as_json(mcp_result_t *r) {
  if (r->structured != NULL || r->structured_text.len == 0)
    return true;
  json_error_t err;
  r->structured =
      mcp__json_load(r->structured_text.data, r->structured_text.len, &err);
  if (r->structured == NULL)
    return false;
  mcp__buf_reset(&r->structured_text);
  return true;
}

mcp_status mcp_result_set_error(mcp_result_t *r, const char *fmt, ...) {
  if (r == NULL || fmt == NULL)
    return MCP_ERR_INVALID_ARG;
  r->is_error = true;
  va_list ap;
  va_start(ap, fmt);
  mcp_content_t *c = add_vtextf(r, fmt, ap);
  va_end(ap);
  return c ? MCP_OK : MCP_ERR_NOMEM;
}

void mcp_result_set_is_error(mcp_result_t *r, bool is_error) {
  if (r)
    r->is_error = is_error;
}

bool mcp_result_is_error(const mcp_result_t *r) {
  return r ? r->is_error : false;
}

mcp_status mcp_result_set_meta(mcp_result_t *r, json_t *meta) {
  if (meta == NULL)
    return lost(r, "_meta");
  if (r == NULL || !json_is_object(meta)) {
    json_decref(meta);
    return MCP_ERR_INVALID_ARG;
  }
  json_decref(r->meta);
  r->meta = meta;
  return MCP_OK;
}

bool mcp__result_encode(const mcp_result_t *r, mcp__buf *out) {
  if (!mcp__buf_append_str(out, "{\"content\":["))
    return false;
  size_t i;
  json_t *block;
  json_array_foreach(r->content, i, block) {
    if ((i > 0 && !mcp__buf_append_char(out, ',')) ||
        !mcp__buf_append_json(out, block, 0))
      return false;
  }
  if (mcp__result_has_structured(r)) {
    /* serialize once; use the text both as the mirror and the member */
    size_t mark = out->len;
    bool mirror = !r->has_text;
    if (mirror && json_array_size(r->content) > 0 &&
        !mcp__buf_append_char(out, ','))
      return false;
    size_t start = out->len;
    const mcp__buf *given = &r->structured_text;
    if (r->structured ? !mcp__buf_append_json(out, r->structured, 0)
                      : !mcp__buf_append(out, given->data, given->len))
      return false;
    size_t n = out->len - start;
    char small[512];
    char *text = n <= sizeof small ? small : malloc(n);
    if (text == NULL)
      return false;
    memcpy(text, out->data + start, n);
    out->len = mirror ? start : mark;
    bool ok = true;
    if (mirror)
      ok = mcp__buf_append_str(out, "{\"type\":\"text\",\"text\":") &&
           mcp__buf_append_escaped(out, text, n) &&
           mcp__buf_append_char(out, '}');
    ok = ok && mcp__buf_append_str(out, "],\"structuredContent\":") &&
         mcp__buf_append(out, text, n);
    if (text != small)
      free(text);
    if (!ok)
      return false;
  } else if (!mcp__buf_append_char(out, ']'))
    return false;
  if (r->is_error && !mcp__buf_append_str(out, ",\"isError\":true"))
    return false;
  if (r->meta && (!mcp__buf_append_str(out, ",\"_meta\":") ||
                  !mcp__buf_append_json(out, r->meta, 0)))
    return false;
  return mcp__buf_append_char(out, '}');
}

void mcp__result_reset_to_error(mcp_result_t *r, const char *text) {
  r->lost = NULL;
  json_array_clear(r->content);
  json_decref(r->structured);
  r->structured = NULL;
  mcp__buf_reset(&r->structured_text);
  r->structured_declared = false;
  r->is_error = true;
  r->has_text = false;
  mcp_result_add_text(r, text);
}

json_t *mcp_result_to_json(const mcp_result_t *r) {
  if (r == NULL ||
      !mcp__result_structured_as_json((mcp_result_t *)r)) /* a cache */
    return NULL;
  json_t *o = json_object();
  if (o == NULL)
    return NULL;
  int bad = json_object_set_new(
      o, "content", r->content ? json_incref(r->content) : json_array());
  if (r->structured)
    bad |= json_object_set(o, "structuredContent", r->structured);
  if (r->is_error)
    bad |= json_object_set_new(o, "isError", json_true());
  if (r->meta)
    bad |= json_object_set(o, "_meta", r->meta);
  if (bad) {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* ---- refinements --------------------------------------------------------- */

static json_t *annotations_of(mcp_content_t *c) {
  json_t *ann = json_object_get(BLOCK(c), "annotations");
  if (ann == NULL) {
    ann = json_object();
    if (ann == NULL || json_object_set_new(BLOCK(c), "annotations", ann) != 0)
      return NULL;
  }
  return ann;
}

static mcp_status set_member(json_t *o, const char *key, json_t *value) {
  if (value == NULL)
    return MCP_ERR_NOMEM;
  return json_object_set_new(o, key, value) == 0 ? MCP_OK : MCP_ERR_NOMEM;
}

mcp_status mcp_content_set_audience(mcp_content_t *c, unsigned audience) {
  if (c == NULL || audience == 0 ||
      (audience & ~(MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT)))
    return MCP_ERR_INVALID_ARG;
  json_t *ann = annotations_of(c);
  json_t *list = json_array();
  if (ann == NULL || list == NULL) {
    json_decref(list);
    return MCP_ERR_NOMEM;
  }
  if (audience & MCP_AUDIENCE_USER)
    json_array_append_new(list, json_string("user"));
  if (audience & MCP_AUDIENCE_ASSISTANT)
    json_array_append_new(list, json_string("assistant"));
  return set_member(ann, "audience", list);
}

mcp_status mcp_content_set_priority(mcp_content_t *c, double priority) {
  if (c == NULL || !(priority >= 0.0 && priority <= 1.0))
    return MCP_ERR_INVALID_ARG;
  json_t *ann = annotations_of(c);
  if (ann == NULL)
    return MCP_ERR_NOMEM;
  return set_member(ann, "priority", json_real(priority));
}

mcp_status mcp_content_set_last_modified(mcp_content_t *c,
                                         const char *iso8601) {
  if (c == NULL || iso8601 == NULL)
    return MCP_ERR_INVALID_ARG;
  json_t *ann = annotations_of(c);
  if (ann == NULL)
    return MCP_ERR_NOMEM;
  return set_member(ann, "lastModified", json_string(iso8601));
}

static bool is_link(mcp_content_t *c) {
  const char *type = json_string_value(json_object_get(BLOCK(c), "type"));
  return type && strcmp(type, "resource_link") == 0;
}

mcp_status mcp_content_set_title(mcp_content_t *c, const char *title) {
  if (c == NULL || title == NULL || !is_link(c))
    return MCP_ERR_INVALID_ARG;
  return set_member(BLOCK(c), "title", json_string(title));
}

mcp_status mcp_content_set_description(mcp_content_t *c,
                                       const char *description) {
  if (c == NULL || description == NULL || !is_link(c))
    return MCP_ERR_INVALID_ARG;
  return set_member(BLOCK(c), "description", json_string(description));
}

mcp_status mcp_content_set_mime_type(mcp_content_t *c, const char *mime_type) {
  if (c == NULL || mime_type == NULL || !is_link(c))
    return MCP_ERR_INVALID_ARG;
  return set_member(BLOCK(c), "mimeType", json_string(mime_type));
}

mcp_status mcp_content_set_size(mcp_content_t *c, uint64_t bytes) {
  if (c == NULL || !is_link(c) || bytes > (uint64_t)INT64_MAX)
    return MCP_ERR_INVALID_ARG;
  return set_member(BLOCK(c), "size", json_integer((json_int_t)bytes));
}

mcp_status mcp_content_add_icon(mcp_content_t *c, const char *src,
                                const char *mime_type, const char *sizes,
                                const char *theme) {
  if (c == NULL || !is_link(c))
    return MCP_ERR_INVALID_ARG;
  json_t *icons = json_object_get(BLOCK(c), "icons");
  json_t *held = icons ? json_incref(icons) : NULL;
  if (!mcp__icon_append(&held, src, mime_type, sizes, theme)) {
    json_decref(held);
    return MCP_ERR_INVALID_ARG;
  }
  return set_member(BLOCK(c), "icons", held);
}

mcp_status mcp_content_set_meta(mcp_content_t *c, json_t *meta) {
  if (meta == NULL)
    return MCP_ERR_NOMEM;
  if (c == NULL || !json_is_object(meta)) {
    json_decref(meta);
    return MCP_ERR_INVALID_ARG;
  }
  return set_member(BLOCK(c), "_meta", meta);
}
