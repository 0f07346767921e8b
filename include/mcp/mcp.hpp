// SPDX-License-Identifier: MIT
// mcp.hpp - the C++17 layer of libmcp: header-only, over the C ABI.
//
// Everything here calls the C functions of <mcp/mcp.h>; nothing is
// implemented twice. What it adds is C++: RAII owners (server, tool,
// resource, prompt, store, result, json), tools from lambdas or functions
// (with captures), input and output schemas derived from C++ types, and
// exceptions mapped onto the protocol:
//
//   - a std::exception thrown by a tool handler becomes an isError result
//     carrying its message (what the model sees and can correct);
//   - mcp::protocol_error(code, message) becomes a JSON-RPC error;
//   - mcp::resource_not_found becomes -32002 in a resource handler;
//   - mcp::status_exit(status) returns that status from the handler as is
//     (how input_required rounds and tasks started in a handler leave it;
//     mcp::call's helpers throw it for you).
//
// A failure while building (a bad tool name, a schema the library refuses,
// a duplicate name) throws mcp::error naming the culprit.
//
// Types and their JSON Schema (docs/cpp.md):
//   std::string          {"type":"string"}
//   bool                 {"type":"boolean"}
//   integers             {"type":"integer"} (a value outside the C++ type is
//                        refused naming the argument)
//   float, double        {"type":"number"}
//   std::optional<T>     T's schema, not required; absent -> std::nullopt
//   std::vector<T>       {"type":"array","items":T's schema}
//   an enum E            {"type":"string","enum":[...]} from
//                        mcp::names<E> describe(E *)
//   a struct S           {"type":"object",...} from
//                        mcp::fields<S> describe(S *)
//   mcp::json            any JSON value ({})
// describe() is found by argument-dependent lookup: declare it next to the
// type (in its namespace). Each field is {"json name", &S::member,
// "description", options...} with options mcp::range, mcp::min, mcp::max,
// mcp::min_length, mcp::max_length, mcp::pattern, mcp::format, mcp::title,
// mcp::min_items, mcp::max_items, mcp::one_of and mcp::default_value.
//
// Thread safety: as the C API. Build on one thread; handlers run
// concurrently on the server's workers and must be reentrant (a lambda's
// captures are shared by every call).
#ifndef MCP_MCP_HPP
#define MCP_MCP_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "mcp/mcp.h"

namespace mcp {

// ---- errors -----------------------------------------------------------------

// A libmcp call failed while building or serving (not inside a handler).
class error : public std::runtime_error {
public:
  error(mcp_status status, const std::string &what)
      : std::runtime_error(what), status_(status) {}
  mcp_status status() const noexcept { return status_; }

private:
  mcp_status status_;
};

// Thrown from a handler: answer with a JSON-RPC error of this code.
class protocol_error : public std::runtime_error {
public:
  protocol_error(int code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

private:
  int code_;
};

// Thrown from a resource handler: the URI names nothing (-32002).
class resource_not_found : public std::runtime_error {
public:
  explicit resource_not_found(const std::string &uri)
      : std::runtime_error("resource not found: " + uri) {}
};

// Thrown from a handler: return this status from it unchanged
// (MCP_ERR_INPUT_REQUIRED, MCP_ERR_TASK_STARTED, MCP_ERR_CAPABILITY, ...).
class status_exit : public std::exception {
public:
  explicit status_exit(mcp_status status) noexcept : status_(status) {}
  mcp_status status() const noexcept { return status_; }
  const char *what() const noexcept override { return mcp_strerror(status_); }

private:
  mcp_status status_;
};

namespace detail {
inline void check(mcp_status status, const std::string &what) {
  if (status != MCP_OK)
    throw error(status, what + ": " + mcp_strerror(status));
}
inline void check(mcp_status status, const std::string &what,
                  const mcp_error_t &err) {
  if (status != MCP_OK)
    throw error(status, what + ": " +
                            (err.message[0] ? std::string(err.message)
                                            : std::string(mcp_strerror(status))));
}
inline const char *c_str_or_null(const std::string &s) {
  return s.empty() ? nullptr : s.c_str();
}
template <class T> struct always_false : std::false_type {};
} // namespace detail

// ---- json: an owned reference to a jansson value ----------------------------

class json {
public:
  json() noexcept = default;
  json(const json &other) noexcept : p_(json_incref(other.p_)) {}
  json(json &&other) noexcept : p_(other.p_) { other.p_ = nullptr; }
  json &operator=(json other) noexcept {
    std::swap(p_, other.p_);
    return *this;
  }
  ~json() { json_decref(p_); }

  // Takes over a reference (a "returns new" value of jansson or libmcp).
  static json steal(json_t *p) noexcept {
    json j;
    j.p_ = p;
    return j;
  }
  // Adds a reference to a borrowed value.
  static json borrow(json_t *p) noexcept { return steal(json_incref(p)); }
  // Parses JSON text; throws mcp::error naming the position when it is not.
  static json parse(const std::string &text) {
    json_error_t e;
    json_t *p = json_loadb(text.data(), text.size(), JSON_DECODE_ANY, &e);
    if (!p)
      throw error(MCP_ERR_PARSE, std::string("JSON text at line ") +
                                     std::to_string(e.line) + ": " + e.text);
    return steal(p);
  }

  json_t *get() const noexcept { return p_; }
  // Gives up the reference (for a C function that steals).
  json_t *release() noexcept {
    json_t *p = p_;
    p_ = nullptr;
    return p;
  }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  // Compact text with keys in insertion order ("null" for an empty json).
  std::string dump() const {
    if (!p_)
      return "null";
    char *s = json_dumps(p_, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s)
      throw std::bad_alloc();
    std::string out(s);
    std::free(s);
    return out;
  }
  // A member of an object (borrowed into a new json), empty when absent.
  json operator[](const char *key) const {
    return borrow(json_object_get(p_, key));
  }
  json operator[](std::size_t index) const {
    return borrow(json_array_get(p_, index));
  }
  std::string string() const {
    const char *s = json_string_value(p_);
    return s ? std::string(s, json_string_length(p_)) : std::string();
  }
  std::int64_t integer() const { return json_integer_value(p_); }
  double number() const { return json_number_value(p_); }
  bool boolean() const { return json_is_true(p_); }
  std::size_t size() const {
    return json_is_array(p_) ? json_array_size(p_) : json_object_size(p_);
  }

private:
  json_t *p_ = nullptr;
};

// ---- schema options ------------------------------------------------------------

// JSON Schema keywords added to a field's schema (mcp::range(1, 100), ...).
struct keywords {
  std::vector<std::pair<std::string, json>> list;
};

namespace detail {
template <class V> json number_json(V v) {
  static_assert(std::is_arithmetic<V>::value, "mcp: bounds are numbers");
  if constexpr (std::is_integral<V>::value)
    return json::steal(json_integer(static_cast<json_int_t>(v)));
  else
    return json::steal(json_real(static_cast<double>(v)));
}
inline keywords keyword(const char *key, json value) {
  keywords k;
  k.list.emplace_back(key, std::move(value));
  return k;
}
} // namespace detail

template <class V> keywords min(V v) {
  return detail::keyword("minimum", detail::number_json(v));
}
template <class V> keywords max(V v) {
  return detail::keyword("maximum", detail::number_json(v));
}
// minimum and maximum, both inclusive.
template <class V> keywords range(V lo, V hi) {
  keywords k = min(lo);
  k.list.emplace_back("maximum", detail::number_json(hi));
  return k;
}
inline keywords min_length(std::size_t n) {
  return detail::keyword("minLength", detail::number_json(n));
}
inline keywords max_length(std::size_t n) {
  return detail::keyword("maxLength", detail::number_json(n));
}
inline keywords min_items(std::size_t n) {
  return detail::keyword("minItems", detail::number_json(n));
}
inline keywords max_items(std::size_t n) {
  return detail::keyword("maxItems", detail::number_json(n));
}
// An ECMA-262 regular expression the string must match.
inline keywords pattern(const char *ecma_regex) {
  return detail::keyword("pattern", json::steal(json_string(ecma_regex)));
}
inline keywords format(const char *name) {
  return detail::keyword("format", json::steal(json_string(name)));
}
inline keywords title(const char *text) {
  return detail::keyword("title", json::steal(json_string(text)));
}
// The allowed strings of a std::string field (an enum type says it itself).
inline keywords one_of(std::initializer_list<const char *> values) {
  json a = json::steal(json_array());
  for (const char *v : values)
    json_array_append_new(a.get(), json_string(v));
  return detail::keyword("enum", std::move(a));
}

// The value a field takes when the client leaves it out; the field is then
// not required, and "default" is listed in its schema.
template <class V> struct default_value_t {
  V value;
};
template <class V> default_value_t<std::decay_t<V>> default_value(V &&v) {
  return {std::forward<V>(v)};
}
inline default_value_t<std::string> default_value(const char *v) {
  return {std::string(v)};
}

// ---- describing types -----------------------------------------------------------

// An enum's JSON names: mcp::names<E> describe(E *) { return {{E::a, "a"}}; }
template <class E> using names = std::vector<std::pair<E, const char *>>;

template <class T> class fields;

namespace detail {
// describe(T *) found by argument-dependent lookup.
template <class T, class = void> struct has_describe : std::false_type {};
template <class T>
struct has_describe<T, std::void_t<decltype(describe(static_cast<T *>(nullptr)))>>
    : std::true_type {};

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};

// Where a conversion failed: "argument 'a.b[2]'".
inline std::runtime_error bad_value(const std::string &path,
                                    const std::string &why) {
  return std::runtime_error("argument '" + path + "': " + why);
}

template <class T, class = void> struct codec {
  static_assert(always_false<T>::value,
                "mcp: this type has no JSON mapping: use std::string, bool, "
                "an integer or floating type, std::optional, std::vector, "
                "mcp::json, or give it a describe() function (a struct: "
                "mcp::fields<S> describe(S *), an enum: mcp::names<E> "
                "describe(E *))");
};

template <> struct codec<std::string> {
  static json schema() { return json::steal(json_pack("{s:s}", "type", "string")); }
  static void read(const json_t *j, std::string &out, const std::string &path) {
    if (!json_is_string(j))
      throw bad_value(path, "expected a string");
    out.assign(json_string_value(j), json_string_length(j));
  }
  static json write(const std::string &v) {
    return json::steal(json_stringn(v.data(), v.size()));
  }
};

template <> struct codec<bool> {
  static json schema() { return json::steal(json_pack("{s:s}", "type", "boolean")); }
  static void read(const json_t *j, bool &out, const std::string &path) {
    if (!json_is_boolean(j))
      throw bad_value(path, "expected a boolean");
    out = json_is_true(j);
  }
  static json write(bool v) { return json::steal(json_boolean(v)); }
};

template <class T>
struct codec<T, std::enable_if_t<std::is_integral<T>::value &&
                                 !std::is_same<T, bool>::value>> {
  static json schema() { return json::steal(json_pack("{s:s}", "type", "integer")); }
  static void read(const json_t *j, T &out, const std::string &path) {
    long double v;
    if (json_is_integer(j))
      v = static_cast<long double>(json_integer_value(j));
    else if (json_is_real(j) &&
             std::floor(json_real_value(j)) == json_real_value(j))
      v = static_cast<long double>(json_real_value(j));
    else
      throw bad_value(path, "expected an integer");
    if (v < static_cast<long double>(std::numeric_limits<T>::min()) ||
        v > static_cast<long double>(std::numeric_limits<T>::max()))
      throw bad_value(path, "out of the range of its C++ type");
    out = static_cast<T>(v);
  }
  static json write(T v) {
    if constexpr (std::is_unsigned<T>::value && sizeof(T) >= sizeof(json_int_t))
      if (v > static_cast<T>(std::numeric_limits<json_int_t>::max()))
        return json::steal(json_real(static_cast<double>(v)));
    return json::steal(json_integer(static_cast<json_int_t>(v)));
  }
};

template <class T>
struct codec<T, std::enable_if_t<std::is_floating_point<T>::value>> {
  static json schema() { return json::steal(json_pack("{s:s}", "type", "number")); }
  static void read(const json_t *j, T &out, const std::string &path) {
    if (!json_is_number(j))
      throw bad_value(path, "expected a number");
    out = static_cast<T>(json_number_value(j));
  }
  static json write(T v) {
    if (!std::isfinite(v))
      throw std::runtime_error("a number is not finite (JSON cannot carry it)");
    return json::steal(json_real(static_cast<double>(v)));
  }
};

template <> struct codec<json> {
  static json schema() { return json::steal(json_object()); }
  static void read(const json_t *j, json &out, const std::string &) {
    out = json::borrow(const_cast<json_t *>(j));
  }
  static json write(const json &v) {
    return v ? v : json::steal(json_null());
  }
};

template <class T> struct codec<std::optional<T>> {
  static json schema() { return codec<T>::schema(); }
  static void read(const json_t *j, std::optional<T> &out,
                   const std::string &path) {
    if (!j || json_is_null(j)) {
      out.reset();
      return;
    }
    T v{};
    codec<T>::read(j, v, path);
    out = std::move(v);
  }
  // Empty when absent: the member is left out.
  static json write(const std::optional<T> &v) {
    return v ? codec<T>::write(*v) : json();
  }
};

template <class T, class A> struct codec<std::vector<T, A>> {
  static json schema() {
    json s = json::steal(json_pack("{s:s}", "type", "array"));
    json_object_set_new(s.get(), "items", codec<T>::schema().release());
    return s;
  }
  static void read(const json_t *j, std::vector<T, A> &out,
                   const std::string &path) {
    if (!json_is_array(j))
      throw bad_value(path, "expected an array");
    out.clear();
    out.reserve(json_array_size(j));
    for (std::size_t i = 0; i < json_array_size(j); i++) {
      T v{};
      codec<T>::read(json_array_get(j, i), v,
                     path + "[" + std::to_string(i) + "]");
      out.push_back(std::move(v));
    }
  }
  static json write(const std::vector<T, A> &v) {
    json a = json::steal(json_array());
    for (const T &item : v) {
      json e = codec<T>::write(item);
      json_array_append_new(a.get(), e ? e.release() : json_null());
    }
    return a;
  }
};

// Described once per type, then shared by every call.
template <class T> const auto &description_of() {
  static const auto d = describe(static_cast<T *>(nullptr));
  return d;
}

template <class E>
struct codec<E, std::enable_if_t<std::is_enum<E>::value && has_describe<E>::value>> {
  static json schema() {
    json s = json::steal(json_pack("{s:s}", "type", "string"));
    json values = json::steal(json_array());
    for (const auto &n : description_of<E>())
      json_array_append_new(values.get(), json_string(n.second));
    json_object_set_new(s.get(), "enum", values.release());
    return s;
  }
  static void read(const json_t *j, E &out, const std::string &path) {
    const char *s = json_string_value(j);
    if (s)
      for (const auto &n : description_of<E>())
        if (std::string(n.second) == s) {
          out = n.first;
          return;
        }
    throw bad_value(path, "not one of the enum's names");
  }
  static json write(E v) {
    for (const auto &n : description_of<E>())
      if (n.first == v)
        return json::steal(json_string(n.second));
    throw std::runtime_error("an enum value has no name in its describe()");
  }
};

template <class S>
struct codec<S, std::enable_if_t<std::is_class<S>::value && has_describe<S>::value>> {
  static json schema() { return description_of<S>().schema(); }
  static void read(const json_t *j, S &out, const std::string &path) {
    if (!json_is_object(j))
      throw bad_value(path, "expected an object");
    description_of<S>().read(j, out, path);
  }
  static json write(const S &v) { return description_of<S>().write(v); }
};

template <class T> struct field_ops {
  virtual ~field_ops() = default;
  virtual void read(const json_t *object, T &out, const std::string &path) const = 0;
  virtual void write(const T &in, json_t *object) const = 0;
};

template <class T, class M> struct member_ops final : field_ops<T> {
  member_ops(const char *n, M T::*m, json d) : name(n), member(m), fallback(std::move(d)) {}
  void read(const json_t *object, T &out, const std::string &path) const override {
    const std::string where = path.empty() ? name : path + "." + name;
    const json_t *j = json_object_get(object, name);
    if (!j || json_is_null(j)) {
      if (fallback)
        j = fallback.get();
      else if constexpr (is_optional<M>::value)
        j = nullptr;
      else
        throw bad_value(where, "is missing");
    }
    codec<M>::read(j, out.*member, where);
  }
  void write(const T &in, json_t *object) const override {
    json v = codec<M>::write(in.*member);
    if (v)
      json_object_set_new(object, name, v.release());
  }
  const char *name;
  M T::*member;
  json fallback;
};

inline void apply(json &schema, json &, const keywords &k) {
  for (const auto &kw : k.list)
    json_object_set(schema.get(), kw.first.c_str(), kw.second.get());
}
template <class M, class V>
void apply(json &schema, json &fallback, const default_value_t<V> &d) {
  fallback = codec<M>::write(static_cast<M>(d.value));
  json_object_set(schema.get(), "default", fallback.get());
}
template <class M> void apply_all(json &, json &) {}
template <class M, class O, class... Rest>
void apply_all(json &schema, json &fallback, const O &o, const Rest &...rest) {
  if constexpr (std::is_same<O, keywords>::value)
    apply(schema, fallback, o);
  else
    apply<M>(schema, fallback, o);
  apply_all<M>(schema, fallback, rest...);
}
} // namespace detail

// One member of a described struct: {"name", &S::member, "description",
// options...}. The name and description are borrowed (string literals).
template <class T> class field {
public:
  template <class M, class... Options>
  field(const char *name, M T::*member, const char *description,
        const Options &...options)
      : name_(name) {
    schema_ = detail::codec<M>::schema();
    if (description && *description)
      json_object_set_new(schema_.get(), "description", json_string(description));
    json fallback;
    detail::apply_all<M>(schema_, fallback, options...);
    required_ = !detail::is_optional<M>::value && !fallback;
    ops_ = std::make_shared<detail::member_ops<T, M>>(name, member, fallback);
  }
  const char *name() const { return name_; }
  const json &schema() const { return schema_; }
  bool required() const { return required_; }
  const detail::field_ops<T> &ops() const { return *ops_; }

private:
  const char *name_;
  json schema_;
  bool required_ = true;
  std::shared_ptr<const detail::field_ops<T>> ops_;
};

// The fields of a struct, returned by its describe():
//   mcp::fields<S> describe(S *) { return {{"a", &S::a, "..."}, ...}; }
template <class T> class fields {
public:
  fields(std::initializer_list<field<T>> list) : list_(list) {}
  // {"type":"object","properties":{...},"required":[...]}
  json schema() const {
    json s = json::steal(json_pack("{s:s}", "type", "object"));
    json props = json::steal(json_object());
    json required = json::steal(json_array());
    for (const field<T> &f : list_) {
      if (json_object_get(props.get(), f.name()))
        throw error(MCP_ERR_EXISTS,
                    std::string("field '") + f.name() + "' is described twice");
      json_object_set(props.get(), f.name(), f.schema().get());
      if (f.required())
        json_array_append_new(required.get(), json_string(f.name()));
    }
    json_object_set_new(s.get(), "properties", props.release());
    if (json_array_size(required.get()))
      json_object_set_new(s.get(), "required", required.release());
    return s;
  }
  void read(const json_t *object, T &out, const std::string &path) const {
    for (const field<T> &f : list_)
      f.ops().read(object, out, path);
  }
  json write(const T &in) const {
    json o = json::steal(json_object());
    for (const field<T> &f : list_)
      f.ops().write(in, o.get());
    return o;
  }

private:
  std::vector<field<T>> list_;
};

// The JSON Schema of T, and conversions between T and JSON.
template <class T> json schema_of() { return detail::codec<T>::schema(); }
template <class T> json to_json(const T &value) {
  return detail::codec<T>::write(value);
}
// Throws std::runtime_error naming the first value that does not fit.
template <class T> T from_json(const json &j) {
  T out{};
  detail::codec<T>::read(j.get(), out, "");
  return out;
}

// ---- results --------------------------------------------------------------------

// A CallToolResult: the handler's (borrowed) or one of its own (owned, e.g.
// to complete a task from another thread: mcp::result::make()).
class result {
public:
  explicit result(mcp_result_t *borrowed) noexcept : r_(borrowed) {}
  static result make() {
    mcp_result_t *r = nullptr;
    detail::check(mcp_result_new(&r), "mcp_result_new");
    result out(r);
    out.owned_ = true;
    return out;
  }
  result(result &&o) noexcept : r_(o.r_), owned_(o.owned_) { o.r_ = nullptr; }
  result &operator=(result &&o) noexcept {
    std::swap(r_, o.r_);
    std::swap(owned_, o.owned_);
    return *this;
  }
  result(const result &) = delete;
  result &operator=(const result &) = delete;
  ~result() {
    if (owned_)
      mcp_result_free(r_);
  }

  result &text(const std::string &t) {
    mcp_result_add_text(r_, t.c_str());
    return *this;
  }
  result &image(const std::string &base64, const char *mime_type) {
    mcp_result_add_image(r_, base64.c_str(), mime_type);
    return *this;
  }
  // A resource_link block; mime_type may be empty.
  result &resource_link(const std::string &uri, const std::string &name,
                        const std::string &mime_type = std::string()) {
    mcp_content_t *link = mcp_result_add_resource_link(r_, uri.c_str(), name.c_str());
    if (!mime_type.empty())
      mcp_content_set_mime_type(link, mime_type.c_str());
    return *this;
  }
  result &text_resource(const std::string &uri, const std::string &text,
                        const char *mime_type = nullptr) {
    mcp_result_add_text_resource(r_, uri.c_str(), text.c_str(), mime_type);
    return *this;
  }
  // structuredContent (a JSON object).
  result &structured(json object) {
    mcp_result_set_structured(r_, object.release());
    return *this;
  }
  // isError: true with the message as a text block.
  result &error(const std::string &message) {
    mcp_result_set_error(r_, "%s", message.c_str());
    return *this;
  }
  bool is_error() const { return mcp_result_is_error(r_); }
  json to_json() const { return json::steal(mcp_result_to_json(r_)); }
  mcp_result_t *native() const noexcept { return r_; }

private:
  mcp_result_t *r_;
  bool owned_ = false;
};

// ---- the call -----------------------------------------------------------------------

// What a handler may ask of its request (borrowed; valid while it runs).
class call {
public:
  call(mcp_call_t *c, mcp_result_t *r) noexcept : c_(c), result_(r) {}
  call(const call &) = delete;
  call &operator=(const call &) = delete;

  // A tool's result (tools only).
  mcp::result &result() noexcept { return result_; }
  // Cancelled by the client (or the server stopping): stop working.
  bool cancelled() const { return mcp_call_is_cancelled(c_); }
  // notifications/progress (nothing when the client asked for none);
  // progress must grow; total < 0: unknown.
  void progress(double progress, double total = -1,
                const std::string &message = std::string()) {
    detail::check(mcp_call_progress(c_, progress, total,
                                    detail::c_str_or_null(message)),
                  "progress");
  }
  void log(mcp_log_level level, const std::string &message,
           const char *logger = nullptr) {
    mcp_call_log(c_, level, logger, json_string(message.c_str()));
  }
  std::string protocol_version() const {
    const char *v = mcp_call_protocol_version(c_);
    return v ? v : "";
  }
  // The authenticated subject, "" without authentication.
  std::string subject() const {
    const char *s = mcp_call_subject(c_);
    return s ? s : "";
  }
  // The task this call runs as, "" for an ordinary request.
  std::string task_id() const {
    const char *id = mcp_call_task_id(c_);
    return id ? id : "";
  }
  bool is_task() const { return mcp_call_task_id(c_) != nullptr; }
  // For a tool marked task_start_in_handler(): the rest runs as a task
  // (2026-07-28); leaves the handler, which runs again as the task.
  void continue_as_task() {
    mcp_status st = mcp_call_continue_as_task(c_);
    if (st == MCP_ERR_TASK_STARTED)
      throw status_exit(st);
    detail::check(st, "continue_as_task");
  }
  // The task is completed later through mcp::tasks (from any thread).
  void defer_task() { detail::check(mcp_call_task_defer(c_), "defer_task"); }

  // Asks the user for the fields of T (a described struct of flat fields)
  // with a form: T when accepted, std::nullopt when declined or cancelled.
  // 2025-11-25: a request that waits for the answer. 2026-07-28: the first
  // round leaves the handler with input_required; the client answers and
  // the handler runs again from the top, where the answer is returned.
  template <class T> std::optional<T> elicit(const std::string &message) {
    mcp_elicit_action action = MCP_ELICIT_CANCEL;
    json_t *content = nullptr;
    mcp_error_t err{};
    mcp_status st = mcp_call_elicit(c_, message.c_str(),
                                    schema_of<T>().release(), 0, &action,
                                    &content, &err);
    // input_required (2026-07-28), a client without form elicitation
    // (-32021 for 2026-07-28 clients), a cancelled call: the handler
    // returns the status
    if (st == MCP_ERR_INPUT_REQUIRED || st == MCP_ERR_CAPABILITY ||
        st == MCP_ERR_CANCELLED)
      throw status_exit(st);
    detail::check(st, "elicitation", err);
    json answer = json::steal(content);
    if (action != MCP_ELICIT_ACCEPT)
      return std::nullopt;
    return from_json<T>(answer);
  }

  mcp_call_t *native() const noexcept { return c_; }

private:
  mcp_call_t *c_;
  mcp::result result_;
};

// ---- handler plumbing -------------------------------------------------------------

namespace detail {
template <class F> struct fn_traits : fn_traits<decltype(&F::operator())> {};
template <class R, class... A> struct fn_traits<R(A...)> {
  using ret = R;
  using args = std::tuple<std::decay_t<A>...>;
  static constexpr std::size_t arity = sizeof...(A);
};
template <class R, class... A> struct fn_traits<R (*)(A...)> : fn_traits<R(A...)> {};
template <class R, class... A>
struct fn_traits<R (*)(A...) noexcept> : fn_traits<R(A...)> {};
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...)> : fn_traits<R(A...)> {};
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...) const> : fn_traits<R(A...)> {};
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...) noexcept> : fn_traits<R(A...)> {};
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...) const noexcept> : fn_traits<R(A...)> {};

template <class F, std::size_t I>
using arg_t = std::tuple_element_t<I, typename fn_traits<F>::args>;

// The input type of a tool handler: its first parameter unless that is
// the call; void when it takes none.
template <class F, bool = (fn_traits<F>::arity > 0)> struct input_of {
  using type = std::conditional_t<std::is_same<arg_t<F, 0>, call>::value,
                                  void, arg_t<F, 0>>;
};
template <class F> struct input_of<F, false> {
  using type = void;
};

template <class T>
constexpr bool is_described_struct =
    std::is_class<T>::value && has_describe<T>::value;

template <class F> void check_tool_signature() {
  using traits = fn_traits<F>;
  using in = typename input_of<F>::type;
  constexpr std::size_t n = traits::arity;
  static_assert(n <= 2, "mcp: a tool handler takes (Input), (Input, mcp::call &), "
                        "(mcp::call &) or ()");
  if constexpr (n == 2)
    static_assert(std::is_same<arg_t<F, 1>, call>::value,
                  "mcp: a tool handler's second parameter is mcp::call &");
  if constexpr (!std::is_void<in>::value)
    static_assert(is_described_struct<in> || std::is_same<in, json>::value,
                  "mcp: a tool's input is a struct with a describe() "
                  "function (mcp::fields) or mcp::json");
  using R = typename traits::ret;
  static_assert(std::is_void<R>::value || std::is_same<R, std::string>::value ||
                    std::is_same<R, const char *>::value ||
                    std::is_same<R, json>::value || is_described_struct<R>,
                "mcp: a tool handler returns void (it filled call.result()), "
                "std::string (a text block), mcp::json (structuredContent) or "
                "a described struct (structuredContent + outputSchema)");
}

template <class F> decltype(auto) invoke_tool(F &f, json_t *args, call &c) {
  using in = typename input_of<F>::type;
  constexpr std::size_t n = fn_traits<F>::arity;
  if constexpr (std::is_void<in>::value) {
    if constexpr (n == 0)
      return f();
    else
      return f(c);
  } else {
    in input{};
    codec<in>::read(args, input, "");
    if constexpr (n == 1)
      return f(static_cast<const in &>(input));
    else
      return f(static_cast<const in &>(input), c);
  }
}

template <class F> void run_tool(F &f, json_t *args, call &c) {
  using R = typename fn_traits<F>::ret;
  if constexpr (std::is_void<R>::value) {
    invoke_tool(f, args, c);
  } else {
    R r = invoke_tool(f, args, c);
    if constexpr (std::is_same<R, std::string>::value ||
                  std::is_same<R, const char *>::value)
      c.result().text(r);
    else if constexpr (std::is_same<R, json>::value)
      c.result().structured(std::move(r));
    else
      c.result().structured(codec<R>::write(r));
  }
}

// What every trampoline does with an exception that is not a tool error.
inline mcp_status protocol_status(mcp_call_t *c, std::exception_ptr e) noexcept {
  try {
    std::rethrow_exception(e);
  } catch (const status_exit &s) {
    return s.status();
  } catch (const resource_not_found &) {
    return MCP_ERR_RESOURCE_NOT_FOUND;
  } catch (const protocol_error &p) {
    mcp_call_set_error(c, p.code(), p.what(), nullptr);
    return MCP_ERR_INTERNAL;
  } catch (const std::bad_alloc &) {
    return MCP_ERR_NOMEM;
  } catch (const std::exception &x) {
    mcp_call_set_error(c, MCP_RPC_INTERNAL_ERROR, x.what(), nullptr);
    return MCP_ERR_INTERNAL;
  } catch (...) {
    mcp_call_set_error(c, MCP_RPC_INTERNAL_ERROR, "unknown C++ exception",
                       nullptr);
    return MCP_ERR_INTERNAL;
  }
}

template <class F>
mcp_status tool_trampoline(mcp_call_t *c, json_t *args, mcp_result_t *r,
                           void *user_data) noexcept {
  call cx(c, r);
  try {
    run_tool(*static_cast<F *>(user_data), args, cx);
    return MCP_OK;
  } catch (const status_exit &) {
    return protocol_status(c, std::current_exception());
  } catch (const protocol_error &) {
    return protocol_status(c, std::current_exception());
  } catch (const std::bad_alloc &) {
    return MCP_ERR_NOMEM;
  } catch (const std::exception &x) {
    // a tool error: the model reads the message and may try again
    mcp_result_set_error(r, "%s", x.what());
    return MCP_OK;
  } catch (...) {
    mcp_result_set_error(r, "unknown C++ exception");
    return MCP_OK;
  }
}

template <class F> void delete_callable(void *p) noexcept {
  delete static_cast<F *>(p);
}

// Calls set(fn, user_data, free) with a heap copy of f; frees the copy
// when set fails (the C API then never calls free).
template <class F, class Set>
void install(F &&f, const std::string &what, Set set) {
  using D = std::decay_t<F>;
  auto *copy = new D(std::forward<F>(f));
  mcp_status st = set(copy, &delete_callable<D>);
  if (st != MCP_OK) {
    delete copy;
    check(st, what);
  }
}
} // namespace detail

// A borrowed object of string values (prompt arguments, URI template
// variables, completion context).
class args {
public:
  explicit args(const json_t *object) noexcept : o_(object) {}
  bool has(const char *name) const { return json_object_get(o_, name) != nullptr; }
  // The value, "" when absent (an exploded {var*} joins its items with ',').
  std::string operator[](const char *name) const {
    const json_t *v = json_object_get(o_, name);
    if (json_is_string(v))
      return std::string(json_string_value(v), json_string_length(v));
    std::string joined;
    for (const std::string &s : list(name))
      joined += (joined.empty() ? "" : ",") + s;
    return joined;
  }
  // An exploded template variable's items (one item for a plain string).
  std::vector<std::string> list(const char *name) const {
    std::vector<std::string> out;
    const json_t *v = json_object_get(o_, name);
    if (json_is_string(v))
      out.emplace_back(json_string_value(v), json_string_length(v));
    for (std::size_t i = 0; json_is_array(v) && i < json_array_size(v); i++)
      if (json_is_string(json_array_get(v, i)))
        out.emplace_back(json_string_value(json_array_get(v, i)));
    return out;
  }
  const json_t *native() const noexcept { return o_; }

private:
  const json_t *o_;
};

// A completion handler: (partial) or (partial, context) -> suggestions.
using completer = std::function<std::vector<std::string>(const std::string &,
                                                         const args &)>;

namespace detail {
template <class F> completer make_completer(F f) {
  if constexpr (std::is_invocable<F &, const std::string &, const args &>::value)
    return completer(std::move(f));
  else
    return [f](const std::string &partial, const args &) { return f(partial); };
}
inline mcp_status complete_trampoline(mcp_call_t *c, const char *, const char *value,
                                      json_t *context, mcp_completion_t *out,
                                      void *user_data) noexcept {
  try {
    const completer &fn = *static_cast<const completer *>(user_data);
    for (const std::string &v : fn(value ? value : "", args(context)))
      mcp_completion_add(out, v.c_str());
    return MCP_OK;
  } catch (...) {
    return protocol_status(c, std::current_exception());
  }
}
inline void delete_completer(void *p) noexcept { delete static_cast<completer *>(p); }
template <class Set> void install_completer(completer fn, const std::string &what, Set set) {
  auto *copy = new completer(std::move(fn));
  mcp_status st = set(copy);
  if (st != MCP_OK) {
    delete copy;
    check(st, what);
  }
}
} // namespace detail

// ---- tools ---------------------------------------------------------------------------

// When a tools/call may or must run as a task (execution.taskSupport).
enum class task_support { forbidden = MCP_TASK_FORBIDDEN, optional = MCP_TASK_OPTIONAL,
                          required = MCP_TASK_REQUIRED };

// A tool under construction; mcp::server::add takes it.
class tool {
public:
  // Input schema from the handler's first parameter, output schema from its
  // return type when that is a described struct.
  template <class F>
  tool(const std::string &name, const std::string &description, F handler) {
    using D = std::decay_t<F>;
    detail::check_tool_signature<D>();
    mcp_tool_t *t = nullptr;
    detail::check(mcp_tool_new(name.c_str(), &t), "tool '" + name + "'");
    t_.reset(t);
    what_ = "tool '" + name + "'";
    if (!description.empty())
      detail::check(mcp_tool_set_description(t, description.c_str()), what_);
    using in = typename detail::input_of<D>::type;
    if constexpr (detail::is_described_struct<in>)
      detail::check(mcp_tool_set_input_schema(t, schema_of<in>().release()),
                    what_ + ": input schema");
    using R = typename detail::fn_traits<D>::ret;
    if constexpr (detail::is_described_struct<R>)
      detail::check(mcp_tool_set_output_schema(t, schema_of<R>().release()),
                    what_ + ": output schema");
    detail::install(std::move(handler), what_, [t](D *copy, void (*free_fn)(void *)) {
      return mcp_tool_set_handler(t, &detail::tool_trampoline<D>, copy, free_fn);
    });
  }
  tool &title(const std::string &t) {
    detail::check(mcp_tool_set_title(t_.get(), t.c_str()), what_);
    return *this;
  }
  tool &task(task_support support) {
    detail::check(mcp_tool_set_task_support(
                      t_.get(), static_cast<mcp_task_support>(support)),
                  what_);
    return *this;
  }
  // 2026-07-28: the handler runs as a request first and calls
  // call.continue_as_task() where the task should begin.
  tool &task_start_in_handler(bool on = true) {
    detail::check(mcp_tool_set_task_start_in_handler(t_.get(), on), what_);
    return *this;
  }
  tool &hint(mcp_tool_hint hint, bool value) {
    detail::check(mcp_tool_set_hint(t_.get(), hint, value), what_);
    return *this;
  }
  tool &read_only(bool value = true) { return hint(MCP_HINT_READ_ONLY, value); }
  tool &input_schema(json schema) {
    detail::check(mcp_tool_set_input_schema(t_.get(), schema.release()), what_);
    return *this;
  }
  tool &output_schema(json schema) {
    detail::check(mcp_tool_set_output_schema(t_.get(), schema.release()), what_);
    return *this;
  }
  json to_json() const { return json::steal(mcp_tool_to_json(t_.get())); }
  const std::string &what() const { return what_; }
  mcp_tool_t *native() const noexcept { return t_.get(); }
  mcp_tool_t *release() noexcept { return t_.release(); }

private:
  struct deleter {
    void operator()(mcp_tool_t *t) const noexcept { mcp_tool_free(t); }
  };
  std::unique_ptr<mcp_tool_t, deleter> t_;
  std::string what_;
};

// ---- resources ------------------------------------------------------------------------

namespace detail {
// Static resource handlers: () or (mcp::call &); template handlers
// (const mcp::args &vars) or (const mcp::args &vars, mcp::call &). They
// return the text.
template <class F> struct reader {
  F fn;
  std::string mime_type;
};
template <class F> std::string run_reader(F &f, mcp_call_t *c, json_t *vars) {
  call cx(c, nullptr);
  if constexpr (std::is_invocable<F &>::value)
    return f();
  else if constexpr (std::is_invocable<F &, call &>::value)
    return f(cx);
  else if constexpr (std::is_invocable<F &, const args &>::value)
    return f(args(vars));
  else if constexpr (std::is_invocable<F &, const args &, call &>::value)
    return f(args(vars), cx);
  else
    static_assert(always_false<F>::value,
                  "mcp: a resource handler takes (), (mcp::call &), (const "
                  "mcp::args &) or (const mcp::args &, mcp::call &) and "
                  "returns the text");
}
template <class F>
mcp_status read_trampoline(mcp_call_t *c, const char *, json_t *vars,
                           mcp_read_result_t *out, void *user_data) noexcept {
  try {
    auto &r = *static_cast<reader<F> *>(user_data);
    std::string text = run_reader(r.fn, c, vars);
    return mcp_read_result_add_text(out, nullptr, text.c_str(),
                                    c_str_or_null(r.mime_type));
  } catch (...) {
    return protocol_status(c, std::current_exception());
  }
}
struct text_content {
  std::string text;
  std::string operator()() const { return text; }
};
template <class F> auto reader_of(F &&f) {
  if constexpr (std::is_convertible<F, std::string>::value)
    return text_content{std::string(std::forward<F>(f))};
  else
    return std::forward<F>(f);
}
} // namespace detail

// A static resource: its text (a string) or a handler that returns it.
class resource {
public:
  template <class F>
  resource(const std::string &uri, const std::string &name, F &&content) {
    mcp_resource_t *r = nullptr;
    what_ = "resource '" + uri + "'";
    detail::check(mcp_resource_new(uri.c_str(), name.c_str(), &r), what_);
    r_.reset(r);
    using R = detail::reader<std::decay_t<decltype(detail::reader_of(std::forward<F>(content)))>>;
    auto *state = new R{detail::reader_of(std::forward<F>(content)), "text/plain"};
    mcp_status st = mcp_resource_set_handler(r, &detail::read_trampoline<decltype(state->fn)>,
                                             state, &detail::delete_callable<R>);
    if (st != MCP_OK) {
      delete state;
      detail::check(st, what_);
    }
    mime_ = &state->mime_type;
    detail::check(mcp_resource_set_mime_type(r, "text/plain"), what_);
  }
  resource &description(const std::string &d) {
    detail::check(mcp_resource_set_description(r_.get(), d.c_str()), what_);
    return *this;
  }
  resource &title(const std::string &t) {
    detail::check(mcp_resource_set_title(r_.get(), t.c_str()), what_);
    return *this;
  }
  resource &mime_type(const std::string &m) {
    detail::check(mcp_resource_set_mime_type(r_.get(), m.c_str()), what_);
    *mime_ = m;
    return *this;
  }
  const std::string &what() const { return what_; }
  mcp_resource_t *native() const noexcept { return r_.get(); }
  mcp_resource_t *release() noexcept { return r_.release(); }

private:
  struct deleter {
    void operator()(mcp_resource_t *r) const noexcept { mcp_resource_free(r); }
  };
  std::unique_ptr<mcp_resource_t, deleter> r_;
  std::string *mime_ = nullptr; // owned by the handler's state
  std::string what_;
};

// An RFC 6570 URI template; the handler gets its variables.
class resource_template {
public:
  template <class F>
  resource_template(const std::string &uri_template, const std::string &name,
                    F handler) {
    mcp_resource_template_t *t = nullptr;
    what_ = "resource template '" + uri_template + "'";
    detail::check(mcp_resource_template_new(uri_template.c_str(), name.c_str(), &t),
                  what_);
    t_.reset(t);
    using R = detail::reader<F>;
    auto *state = new R{std::move(handler), ""};
    mcp_status st = mcp_resource_template_set_handler(
        t, &detail::read_trampoline<F>, state, &detail::delete_callable<R>);
    if (st != MCP_OK) {
      delete state;
      detail::check(st, what_);
    }
    mime_ = &state->mime_type;
  }
  resource_template &description(const std::string &d) {
    detail::check(mcp_resource_template_set_description(t_.get(), d.c_str()), what_);
    return *this;
  }
  resource_template &mime_type(const std::string &m) {
    detail::check(mcp_resource_template_set_mime_type(t_.get(), m.c_str()), what_);
    *mime_ = m;
    return *this;
  }
  // Completion of one variable: fn(partial) or fn(partial, context).
  template <class F> resource_template &complete(const std::string &variable, F fn) {
    mcp_resource_template_t *t = t_.get();
    detail::install_completer(
        detail::make_completer(std::move(fn)), what_ + ": completion of '" + variable + "'",
        [t, &variable](completer *copy) {
          return mcp_resource_template_set_completion(t, variable.c_str(),
                                                      &detail::complete_trampoline,
                                                      copy, &detail::delete_completer);
        });
    return *this;
  }
  const std::string &what() const { return what_; }
  mcp_resource_template_t *native() const noexcept { return t_.get(); }
  mcp_resource_template_t *release() noexcept { return t_.release(); }

private:
  struct deleter {
    void operator()(mcp_resource_template_t *t) const noexcept {
      mcp_resource_template_free(t);
    }
  };
  std::unique_ptr<mcp_resource_template_t, deleter> t_;
  std::string *mime_ = nullptr;
  std::string what_;
};

// ---- prompts ---------------------------------------------------------------------------

// A declared prompt argument: mcp::arg("item", "What to order").
struct arg {
  arg(std::string n, std::string d = std::string(), bool req = true)
      : name(std::move(n)), description(std::move(d)), required(req) {}
  arg &optional() {
    required = false;
    return *this;
  }
  // Completion of this argument: fn(partial) or fn(partial, context).
  template <class F> arg &complete(F fn) {
    completion = detail::make_completer(std::move(fn));
    return *this;
  }
  std::string name, description;
  bool required;
  completer completion;
};

// One prompt message.
struct message {
  mcp_role role;
  std::string text;
};
inline message user(std::string text) { return {MCP_ROLE_USER, std::move(text)}; }
inline message assistant(std::string text) {
  return {MCP_ROLE_ASSISTANT, std::move(text)};
}

namespace detail {
template <class F> mcp_status prompt_trampoline(mcp_call_t *c, json_t *a,
                                                mcp_prompt_result_t *out,
                                                void *user_data) noexcept {
  try {
    F &f = *static_cast<F *>(user_data);
    call cx(c, nullptr);
    auto messages = [&]() {
      if constexpr (std::is_invocable<F &, const args &, call &>::value)
        return f(args(a), cx);
      else
        return f(args(a));
    }();
    using R = decltype(messages);
    if constexpr (std::is_convertible<R, std::string>::value) {
      if (!mcp_prompt_add_text(out, MCP_ROLE_USER, std::string(messages).c_str()))
        return MCP_ERR_NOMEM;
    } else {
      static_assert(std::is_same<R, std::vector<message>>::value,
                    "mcp: a prompt handler returns std::string (one user "
                    "message) or std::vector<mcp::message>");
      for (const message &m : messages)
        if (!mcp_prompt_add_text(out, m.role, m.text.c_str()))
          return MCP_ERR_NOMEM;
    }
    return MCP_OK;
  } catch (...) {
    return protocol_status(c, std::current_exception());
  }
}
} // namespace detail

class prompt {
public:
  // handler: (const mcp::args &) or (const mcp::args &, mcp::call &),
  // returning std::string (one user message) or std::vector<mcp::message>.
  template <class F>
  prompt(const std::string &name, const std::string &description,
         const std::vector<arg> &arguments, F handler) {
    mcp_prompt_t *p = nullptr;
    what_ = "prompt '" + name + "'";
    detail::check(mcp_prompt_new(name.c_str(), &p), what_);
    p_.reset(p);
    if (!description.empty())
      detail::check(mcp_prompt_set_description(p, description.c_str()), what_);
    for (const arg &a : arguments) {
      const std::string w = what_ + ": argument '" + a.name + "'";
      detail::check(mcp_prompt_add_argument(p, a.name.c_str(), nullptr,
                                            detail::c_str_or_null(a.description),
                                            a.required),
                    w);
      if (a.completion)
        detail::install_completer(a.completion, w, [p, &a](completer *copy) {
          return mcp_prompt_set_completion(p, a.name.c_str(), &detail::complete_trampoline,
                                           copy, &detail::delete_completer);
        });
    }
    detail::install(std::move(handler), what_, [p](F *copy, void (*free_fn)(void *)) {
      return mcp_prompt_set_handler(p, &detail::prompt_trampoline<F>, copy, free_fn);
    });
  }
  prompt &title(const std::string &t) {
    detail::check(mcp_prompt_set_title(p_.get(), t.c_str()), what_);
    return *this;
  }
  const std::string &what() const { return what_; }
  mcp_prompt_t *native() const noexcept { return p_.get(); }
  mcp_prompt_t *release() noexcept { return p_.release(); }

private:
  struct deleter {
    void operator()(mcp_prompt_t *p) const noexcept { mcp_prompt_free(p); }
  };
  std::unique_ptr<mcp_prompt_t, deleter> p_;
  std::string what_;
};

// ---- stores and tasks --------------------------------------------------------------------

// Where tasks are kept: store::memory(), store::sqlite(path) or
// store::open("memory" | "sqlite:PATH" | "postgres://...").
class store {
public:
  static store memory() {
    mcp_store_t *s = nullptr;
    detail::check(mcp_store_memory_new(&s), "memory store");
    return store(s);
  }
  static store sqlite(const std::string &path) {
    mcp_store_t *s = nullptr;
    mcp_error_t err{};
    detail::check(mcp_store_sqlite_open(path.c_str(), &s, &err),
                  "SQLite store '" + path + "'", err);
    return store(s);
  }
  static store open(const std::string &spec) {
    mcp_store_t *s = nullptr;
    mcp_error_t err{};
    detail::check(mcp_store_open(spec.c_str(), &s, &err), "store '" + spec + "'", err);
    return store(s);
  }
  mcp_store_t *native() const noexcept { return s_.get(); }

private:
  explicit store(mcp_store_t *s) : s_(s) {}
  struct deleter {
    void operator()(mcp_store_t *s) const noexcept { mcp_store_free(s); }
  };
  std::unique_ptr<mcp_store_t, deleter> s_;
};

// The application's side of tasks: the server's (server.tasks(), borrowed)
// or one opened on a store by code that only knows task ids
// (tasks::open). Copies share the manager.
class tasks {
public:
  explicit tasks(mcp_tasks_t *borrowed) : t_(borrowed, [](mcp_tasks_t *) {}) {}
  // The tasks of the server called scope in s (which must outlive them).
  static tasks open(const store &s, const std::string &scope) {
    mcp_tasks_t *t = nullptr;
    detail::check(mcp_tasks_open(s.native(), scope.c_str(), &t),
                  "tasks of '" + scope + "'");
    tasks out(nullptr);
    out.t_.reset(t, &mcp_tasks_free);
    return out;
  }
  mcp_task_status status(const std::string &id) const {
    mcp_task_status st = MCP_TASK_WORKING;
    detail::check(mcp_task_get_status(t_.get(), id.c_str(), &st), "task '" + id + "'");
    return st;
  }
  // The Task object.
  json get(const std::string &id) const {
    json_t *t = nullptr;
    detail::check(mcp_task_get(t_.get(), id.c_str(), &t), "task '" + id + "'");
    return json::steal(t);
  }
  // Completed with r (failed when r is an isError result).
  void complete(const std::string &id, const result &r) {
    detail::check(mcp_task_complete(t_.get(), id.c_str(), r.native()),
                  "task '" + id + "'");
  }
  void fail(const std::string &id, const std::string &message) {
    detail::check(mcp_task_fail(t_.get(), id.c_str(), message.c_str()),
                  "task '" + id + "'");
  }
  void cancel(const std::string &id) {
    detail::check(mcp_task_cancel(t_.get(), id.c_str()), "task '" + id + "'");
  }
  mcp_tasks_t *native() const noexcept { return t_.get(); }

private:
  std::shared_ptr<mcp_tasks_t> t_;
};

// Task engine settings (unset members keep the library's defaults).
struct task_options {
  std::optional<unsigned> threads;
  std::optional<unsigned> max_per_caller;
  // ttl of tasks whose request names none, and the largest granted: set
  // both or neither (mcp_task_options_set_ttl).
  std::optional<std::int64_t> default_ttl_ms, max_ttl_ms;
  std::optional<std::int64_t> poll_interval_ms;
  bool list = false; // declare tasks/list (see mcp_task_options_set_list)
  // tasks/cancel of a task not yet terminal: stop work running outside the
  // handler (the handler's call.cancelled() turns true anyway). Any thread.
  std::function<void(mcp::tasks &, const std::string &task_id)> on_cancel;
  // At enable_tasks, once per task of this server a restart interrupted
  // (the Task object): true when the application resumes it and completes
  // it through mcp::tasks; false, or an exception, lets the library mark
  // it failed ("Interrupted: ..."), as it does without this hook.
  std::function<bool(mcp::tasks &, const json &task)> on_resume;
};

namespace detail {
struct task_hooks {
  std::function<void(mcp::tasks &, const std::string &)> on_cancel;
  std::function<bool(mcp::tasks &, const json &)> on_resume;
};
inline void cancel_hook(mcp_tasks_t *t, const char *id, void *user_data) noexcept {
  try {
    mcp::tasks view(t);
    static_cast<task_hooks *>(user_data)->on_cancel(view, id);
  } catch (...) {
    // the task is cancelled whatever the hook does: nothing to undo
  }
}
inline bool resume_hook(mcp_tasks_t *t, const json_t *task, void *user_data) noexcept {
  try {
    mcp::tasks view(t);
    return static_cast<task_hooks *>(user_data)->on_resume(
        view, json::borrow(const_cast<json_t *>(task)));
  } catch (...) {
    return false; // the library fails the task, saying it was interrupted
  }
}
} // namespace detail

// ---- serving -----------------------------------------------------------------------------

// A Streamable HTTP server running in the background until destroyed
// (mcp::server::start_http).
class http_server {
public:
  explicit http_server(mcp_http_server_t *h) noexcept : h_(h) {}
  std::uint16_t port() const { return mcp_http_server_port(h_.get()); }
  void stop() { h_.reset(); }
  mcp_http_server_t *native() const noexcept { return h_.get(); }

private:
  struct deleter {
    void operator()(mcp_http_server_t *h) const noexcept { mcp_http_server_stop(h); }
  };
  std::unique_ptr<mcp_http_server_t, deleter> h_;
};

// ---- the server ------------------------------------------------------------------------

class server {
public:
  server(const std::string &name, const std::string &version) {
    mcp_server_t *s = nullptr;
    detail::check(mcp_server_new(name.c_str(), version.c_str(), &s),
                  "server '" + name + "'");
    s_.reset(s);
  }

  server &instructions(const std::string &text) {
    detail::check(mcp_server_set_instructions(s_.get(), text.c_str()), "instructions");
    return *this;
  }
  server &title(const std::string &text) {
    detail::check(mcp_server_set_title(s_.get(), text.c_str()), "title");
    return *this;
  }

  // Adds a tool, resource, template or prompt: the server takes it (the
  // object is empty afterwards, also when given as an lvalue, such as the
  // result of a chain of setters); throws mcp::error naming it when the
  // server refuses it.
  server &add(mcp::tool &&t) {
    mcp_error_t err{};
    const std::string what = t.what();
    detail::check(mcp_server_add_tool(s_.get(), t.release(), &err), what, err);
    return *this;
  }
  server &add(mcp::resource &&r) {
    const std::string what = r.what();
    detail::check(mcp_server_add_resource(s_.get(), r.release()), what);
    return *this;
  }
  server &add(mcp::resource_template &&t) {
    const std::string what = t.what();
    detail::check(mcp_server_add_resource_template(s_.get(), t.release()), what);
    return *this;
  }
  server &add(mcp::prompt &&p) {
    const std::string what = p.what();
    detail::check(mcp_server_add_prompt(s_.get(), p.release()), what);
    return *this;
  }
  server &add(mcp::tool &t) { return add(std::move(t)); }
  server &add(mcp::resource &r) { return add(std::move(r)); }
  server &add(mcp::resource_template &t) { return add(std::move(t)); }
  server &add(mcp::prompt &p) { return add(std::move(p)); }

  // The short forms of the above.
  template <class F>
  server &tool(const std::string &name, const std::string &description, F handler) {
    return add(mcp::tool(name, description, std::move(handler)));
  }
  // content: the text, or a handler () / (mcp::call &) returning it.
  template <class F>
  server &resource(const std::string &uri, const std::string &name, F &&content) {
    return add(mcp::resource(uri, name, std::forward<F>(content)));
  }
  template <class F>
  server &resource_template(const std::string &uri_template, const std::string &name,
                            F handler) {
    return add(mcp::resource_template(uri_template, name, std::move(handler)));
  }
  template <class F>
  server &prompt(const std::string &name, const std::string &description,
                 const std::vector<arg> &arguments, F handler) {
    return add(mcp::prompt(name, description, arguments, std::move(handler)));
  }

  // Turns tasks on; the server keeps the store until it is destroyed.
  server &enable_tasks(mcp::store s, const task_options &o = task_options()) {
    mcp_task_options_t *opts = nullptr;
    detail::check(mcp_task_options_new(&opts), "task options");
    std::unique_ptr<mcp_task_options_t, void (*)(mcp_task_options_t *)> owner(
        opts, &mcp_task_options_free);
    if (o.threads)
      detail::check(mcp_task_options_set_threads(opts, *o.threads), "task threads");
    if (o.max_per_caller)
      detail::check(mcp_task_options_set_max_per_caller(opts, *o.max_per_caller),
                    "tasks per caller");
    if (o.default_ttl_ms.has_value() != o.max_ttl_ms.has_value())
      throw error(MCP_ERR_INVALID_ARG,
                  "task_options: set default_ttl_ms and max_ttl_ms together");
    if (o.default_ttl_ms)
      detail::check(mcp_task_options_set_ttl(opts, *o.default_ttl_ms, *o.max_ttl_ms),
                    "task ttl");
    if (o.poll_interval_ms)
      detail::check(mcp_task_options_set_poll_interval(opts, *o.poll_interval_ms),
                    "task poll interval");
    detail::check(mcp_task_options_set_list(opts, o.list), "tasks/list");
    // the hooks live as long as the server (declared before it)
    auto hooks = std::make_unique<detail::task_hooks>(
        detail::task_hooks{o.on_cancel, o.on_resume});
    if (hooks->on_cancel)
      detail::check(mcp_task_options_set_cancel_hook(opts, &detail::cancel_hook, hooks.get()),
                    "task cancel hook");
    if (hooks->on_resume)
      detail::check(mcp_task_options_set_resume_hook(opts, &detail::resume_hook, hooks.get()),
                    "task resume hook");
    mcp_error_t err{};
    detail::check(mcp_server_enable_tasks(s_.get(), s.native(), opts, &err), "tasks", err);
    store_.emplace(std::move(s));
    task_hooks_ = std::move(hooks);
    return *this;
  }
  // The task manager (tasks enabled only).
  mcp::tasks tasks() const {
    mcp_tasks_t *t = mcp_server_tasks(s_.get());
    if (!t)
      throw error(MCP_ERR_STATE, "tasks are not enabled");
    return mcp::tasks(t);
  }

  // Serves stdin/stdout until end of input.
  void serve_stdio() { detail::check(mcp_server_serve_stdio(s_.get()), "stdio"); }
  // Serves "HOST:PORT" until SIGINT or SIGTERM.
  void serve_http(const std::string &host_port) {
    detail::check(mcp_server_serve_http(s_.get(), host_port.c_str()),
                  "HTTP on " + host_port);
  }
  // Serves HTTP in the background (port 0: a free one) until the returned
  // object is destroyed, which must happen before the server's.
  http_server start_http(const std::string &address, std::uint16_t port) {
    mcp_http_options_t *o = nullptr;
    detail::check(mcp_http_options_new(&o), "HTTP options");
    std::unique_ptr<mcp_http_options_t, void (*)(mcp_http_options_t *)> owner(
        o, &mcp_http_options_free);
    detail::check(mcp_http_options_set_bind(o, address.c_str(), port), "HTTP bind");
    mcp_http_server_t *h = nullptr;
    mcp_error_t err{};
    detail::check(mcp_http_server_start(s_.get(), o, &h, &err), "HTTP server", err);
    return http_server(h);
  }

  mcp_server_t *native() const noexcept { return s_.get(); }

private:
  // Destroyed in reverse order: the server before the store and the task
  // hooks it uses.
  std::optional<mcp::store> store_;
  std::unique_ptr<detail::task_hooks> task_hooks_;
  struct deleter {
    void operator()(mcp_server_t *s) const noexcept { mcp_server_free(s); }
  };
  std::unique_ptr<mcp_server_t, deleter> s_;
};

// The standard command line (mcp_server_run): --stdio (default),
// --http HOST:PORT, --log-level, --store SPEC, --help, --version, and
// MCP_HTTP / MCP_LOG_LEVEL / MCP_STORE. Returns the exit code.
inline int run(server &s, int argc, char **argv) {
  return mcp_server_run(s.native(), argc, argv);
}

// An option of the application for mcp::run, merged into the command line
// and --help (mcp_server_run_with): --name, the value's name in --help
// (empty: a flag, whose value is "true"), a help line, an environment
// variable read when the option is not given (empty: none), and what to do
// with the value; a std::exception thrown there is a usage error (exit 2)
// with its message.
struct option {
  std::string name, argument, help, env;
  std::function<void(const std::string &value)> set;
};

namespace detail {
inline mcp_status option_trampoline(const char *value, void *user_data, mcp_error_t *err) {
  try {
    static_cast<const option *>(user_data)->set(value);
    return MCP_OK;
  } catch (const std::exception &e) {
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "%s", e.what());
  } catch (...) {
    return mcp_error_set(err, MCP_ERR_INVALID_ARG, "refused");
  }
}
} // namespace detail

// mcp::run with the application's options:
//   std::string db = "shop.db";
//   return mcp::run(shop, argc, argv, {{"db", "PATH", "the database", "SHOP_DB",
//                                       [&](const std::string &v) { db = v; }}});
inline int run(server &s, int argc, char **argv, const std::vector<option> &options) {
  std::vector<mcp_run_option> table;
  for (const option &o : options) {
    mcp_run_option r{};
    r.name = o.name.c_str();
    r.argument = detail::c_str_or_null(o.argument);
    r.help = o.help.c_str();
    r.env = detail::c_str_or_null(o.env);
    r.fn = &detail::option_trampoline;
    r.user_data = const_cast<option *>(&o);
    table.push_back(r);
  }
  table.push_back(mcp_run_option{});
  return mcp_server_run_with(s.native(), argc, argv, table.data());
}

} // namespace mcp

#endif
