// TypeText's intern table: text → its one heap entry (never freed), behind a mutex. The table's
// keys view the entries' own texts.

#include "dialect/TypeText.h"

#include "dialect/DialectSchema.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <mutex>
#include <ostream>

namespace lattice {
namespace {

struct InternTable {
  std::mutex mutex;
  absl::flat_hash_map<std::string_view, const TypeText::Entry*> texts;
};

InternTable& table() {
  static InternTable* const t = new InternTable; // never destroyed: TypeTexts may outlive statics
  return *t;
}

const TypeText::Entry* emptyText() {
  static const TypeText::Entry* const empty = new TypeText::Entry{std::string(), -1};
  return empty;
}

int classify(std::string_view text) {
  const bool control = std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  const std::optional<SchemaValueType> type = valueTypeOf(text);
  return control || !type ? -1 : static_cast<int>(*type);
}

} // namespace

TypeText::TypeText() : m_entry(emptyText()) {}

TypeText::TypeText(std::string_view text) {
  if (text.empty()) {
    m_entry = emptyText();
    return;
  }
  InternTable& t = table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  const auto found = t.texts.find(text);
  if (found != t.texts.end()) {
    m_entry = found->second;
    return;
  }
  m_entry = new Entry{std::string(text), classify(text)};
  t.texts.emplace(m_entry->text, m_entry);
}

std::optional<SchemaValueType> TypeText::valueType() const {
  if (m_entry->valueType < 0) return std::nullopt;
  return static_cast<SchemaValueType>(m_entry->valueType);
}

std::string operator+(const std::string& a, const TypeText& b) { return a + b.str(); }
std::string operator+(const TypeText& a, const std::string& b) { return a.str() + b; }
std::string operator+(const char* a, const TypeText& b) { return a + b.str(); }
std::string operator+(const TypeText& a, const char* b) { return a.str() + b; }

std::ostream& operator<<(std::ostream& out, const TypeText& type) { return out << type.str(); }

std::optional<SchemaValueType> valueTypeOf(std::string_view typeText) {
  const auto startsWith = [&](std::string_view prefix) { return typeText.substr(0, prefix.size()) == prefix; };
  if (startsWith("!lattice.sparse_tensor<")) return SchemaValueType::SparseTensor;
  if (startsWith("!lattice.weight<")) return SchemaValueType::Weight;
  if (startsWith("tensor<")) return SchemaValueType::Tensor;
  return std::nullopt;
}

} // namespace lattice
