#pragma once
/// \file TypeText: an MLIR type text held once per process. A lowering names the same few types
/// over and over (`!lattice.sparse_tensor<..., dtype = f32>` is 85 characters and is carried by
/// every sparse value, operand and result), so values hold a pointer to one interned copy:
/// copying a type is copying a pointer, comparing two types is comparing pointers, and a value
/// owns no type bytes.
///
/// Interned texts live until the process ends. That is bounded by the distinct types a process
/// ever prints (dtypes × channel counts × a few families, plus the ranked tensor types of dense
/// inputs), not by model size. Interning is thread-safe.
///
/// A TypeText converts to `const std::string&` and `std::string_view`, and builds implicitly from
/// strings, so code written against `std::string` types keeps working:
/// \code
///   MlirValue v{"x", "tensor<?x4xi32>"};
///   if (v.type == sparseTensorType("f32")) ...     // pointer comparison
///   std::string_view text = v.type;
/// \endcode

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace lattice {

enum class SchemaValueType; // DialectSchema.h

class TypeText {
public:
  /// The empty text.
  TypeText();
  TypeText(std::string_view text);
  TypeText(const std::string& text) : TypeText(std::string_view(text)) {}
  TypeText(const char* text) : TypeText(std::string_view(text)) {}

  const std::string& str() const { return m_entry->text; }
  std::string_view view() const { return m_entry->text; }
  operator const std::string&() const { return m_entry->text; }
  operator std::string_view() const { return m_entry->text; }

  std::size_t size() const { return m_entry->text.size(); }
  bool empty() const { return m_entry->text.empty(); }
  const char* data() const { return m_entry->text.data(); }
  const char* c_str() const { return m_entry->text.c_str(); }
  /// Equal for equal texts and only for them (the interned copy's address), for caches.
  const void* id() const { return m_entry; }

  /// The schema value type the text spells (`valueTypeOf`), or nullopt for any other text and for
  /// a text with a control character (which no MLIR type may hold). Worked out once per text,
  /// when it is interned.
  std::optional<SchemaValueType> valueType() const;

  friend bool operator==(const TypeText& a, const TypeText& b) { return a.m_entry == b.m_entry; }
  friend bool operator!=(const TypeText& a, const TypeText& b) { return a.m_entry != b.m_entry; }
  friend bool operator==(const TypeText& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(std::string_view a, const TypeText& b) { return a == b.view(); }
  friend bool operator==(const TypeText& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const std::string& a, const TypeText& b) { return a == b.view(); }
  friend bool operator==(const TypeText& a, const char* b) { return a.view() == b; }
  friend bool operator==(const char* a, const TypeText& b) { return a == b.view(); }
  friend bool operator!=(const TypeText& a, std::string_view b) { return !(a == b); }
  friend bool operator!=(const TypeText& a, const std::string& b) { return !(a == b); }
  friend bool operator!=(const TypeText& a, const char* b) { return !(a == b); }
  /// Orders by text (not by address), so sorted output does not depend on interning order.
  friend bool operator<(const TypeText& a, const TypeText& b) { return a.view() < b.view(); }

  /// One interned text (never freed).
  struct Entry {
    std::string text;
    int valueType; // a SchemaValueType, or -1
  };

private:
  const Entry* m_entry;
};

/// `text + type` / `type + text` for messages.
std::string operator+(const std::string& a, const TypeText& b);
std::string operator+(const TypeText& a, const std::string& b);
std::string operator+(const char* a, const TypeText& b);
std::string operator+(const TypeText& a, const char* b);
std::ostream& operator<<(std::ostream& out, const TypeText& type);

/// The operand class of a type text: `!lattice.sparse_tensor<...>` → SparseTensor,
/// `!lattice.weight<...>` → Weight, `tensor<...>` → Tensor; nullopt for anything else.
std::optional<SchemaValueType> valueTypeOf(std::string_view typeText);

} // namespace lattice
