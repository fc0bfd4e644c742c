// TypeText's intern table: text → its one heap string (never freed), behind a mutex. A lookup
// hashes the text once and allocates only for a text seen for the first time.

#include "artifact/TypeText.h"

#include "support/StringMap.h"

#include <mutex>
#include <ostream>


namespace lattice {
namespace {

struct InternTable {
  std::mutex mutex;
  StringMap<const std::string*> texts;
};

InternTable& table() {
  static InternTable* const t = new InternTable; // never destroyed: TypeTexts may outlive statics
  return *t;
}

const std::string* emptyText() {
  static const std::string* const empty = new std::string;
  return empty;
}

} // namespace

TypeText::TypeText() : m_text(emptyText()) {}

TypeText::TypeText(std::string_view text) {
  if (text.empty()) {
    m_text = emptyText();
    return;
  }
  InternTable& t = table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  const std::string*& slot = t.texts[text];
  if (!slot) slot = new std::string(text);
  m_text = slot;
}

std::string operator+(const std::string& a, const TypeText& b) { return a + b.str(); }
std::string operator+(const TypeText& a, const std::string& b) { return a.str() + b; }
std::string operator+(const char* a, const TypeText& b) { return a + b.str(); }
std::string operator+(const TypeText& a, const char* b) { return a.str() + b; }

std::ostream& operator<<(std::ostream& out, const TypeText& type) { return out << type.str(); }

} // namespace lattice
