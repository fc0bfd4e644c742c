// Implements the torch.fx text forms: Node::format (`format_node`), Graph::print (`str(graph)`)
// and Graph::printTabular (`print_tabular`, i.e. tabulate's "simple" format). Arguments print
// as torch's `_format_arg` does: containers recursively, nodes as `%name`, everything else with
// Python `str()` (so strings and dict keys are unquoted). Deliberately not reproduced: type
// annotations (a Node has no type) and tabulate's numeric column alignment (no column of an FX
// table is numeric: names are identifiers and args/kwargs print as containers). call_function
// targets print as their canonical name everywhere; torch's tabular view prints the callable's
// repr (`<built-in function add>`) instead.

#include "fx/Graph.h"

#include <algorithm>
#include <array>

namespace lattice::fx {

namespace {

std::string formatArg(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::List:
  case Value::Kind::Tuple: {
    const bool isList = v.kind() == Value::Kind::List;
    std::string out(1, isList ? '[' : '(');
    const ValueList& items = v.items();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) out += ", ";
      out += formatArg(items[i]);
    }
    if (!isList && items.size() == 1) out += ',';
    out += isList ? ']' : ')';
    return out;
  }
  case Value::Kind::Dict: {
    std::string out = "{";
    bool first = true;
    for (const auto& kv : v.dictItems()) {
      if (!first) out += ", ";
      first = false;
      out += kv.first;
      out += ": ";
      out += formatArg(kv.second);
    }
    return out + "}";
  }
  case Value::Kind::NodeRef:
    return pythonRepr(v, true);
  default:
    return pythonStr(v);
  }
}

std::string formatArgs(const ValueList& args) {
  return formatArg(Value::tuple(args));
}

std::string formatKwargs(const Kwargs& kwargs) {
  return formatArg(Value::dict(kwargs));
}

std::string reprArgs(const ValueList& args) {
  return pythonRepr(Value::tuple(args), false);
}

std::string reprKwargs(const Kwargs& kwargs) {
  return pythonRepr(Value::dict(kwargs), false);
}

// Display width as Python's len(): code points of UTF-8 text.
std::size_t textWidth(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string strip(const std::string& s) {
  const char* ws = " \t\n\r\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

} // namespace

std::string Node::format() const {
  const std::string head = "%" + m_name + " : [num_users=" + std::to_string(m_users.size()) +
                           "] = " + std::string(opName(m_op)) + "[target=" + m_target + "]";
  switch (m_op) {
  case Op::Placeholder:
    return m_args.empty() ? head : head + "(default=" + pythonStr(m_args[0]) + ")";
  case Op::GetAttr:
    return head;
  case Op::Output:
    return "return " + (m_args.empty() ? std::string("None") : pythonStr(m_args[0]));
  default:
    return head + "(args = " + formatArgs(m_args) + ", kwargs = " + formatKwargs(m_kwargs) + ")";
  }
}

std::string Graph::print() const {
  std::string out = "graph():\n";
  for (const Node& n : m_nodes) {
    out += "    ";
    out += n.format();
    out += '\n';
  }
  return out;
}

std::string Graph::printTabular() const {
  static const char* const headers[5] = {"opcode", "name", "target", "args", "kwargs"};
  std::vector<std::array<std::string, 5>> rows;
  rows.reserve(m_nodes.size());
  for (const Node& n : m_nodes) {
    rows.push_back(
        {std::string(opName(n.op())), n.name(), n.target(), reprArgs(n.args()), reprKwargs(n.kwargs())});
    for (std::string& cell : rows.back())
      cell = strip(cell);
  }
  // tabulate: a column is at least its header plus two wide; left aligned, two-space gaps.
  std::size_t width[5];
  for (int c = 0; c < 5; ++c) {
    width[c] = textWidth(headers[c]) + 2;
    for (const auto& row : rows)
      width[c] = std::max(width[c], textWidth(row[c]));
  }
  // Each line is right-stripped like tabulate's _build_simple_row.
  std::string out;
  auto line = [&out, &width](const std::array<std::string, 5>& cells) {
    std::string text;
    for (int c = 0; c < 5; ++c) {
      if (c) text += "  ";
      text += cells[c];
      text.append(width[c] - textWidth(cells[c]), ' ');
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out += text;
    out += '\n';
  };
  line({headers[0], headers[1], headers[2], headers[3], headers[4]});
  std::array<std::string, 5> rule;
  for (int c = 0; c < 5; ++c)
    rule[c] = std::string(width[c], '-');
  line(rule);
  for (const auto& row : rows)
    line(row);
  return out;
}

} // namespace lattice::fx
