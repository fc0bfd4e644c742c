#pragma once
/// \file The archive's JSON encoding of values and nodes (fx-archive.md "Node", "Values").

#include "fx/Graph.h"
#include "support/Expected.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <memory>
#include <string>

namespace lattice::fx {

/// Encodes a value; node references become {"node": name}. Object values encode as {"repr": ...}.
nlohmann::json valueToJson(const Value& value);
/// Decodes a value at JSON location `where` (e.g. "modules[3].graph.nodes[7].args[0]");
/// `resolve(name)` returns the node for {"node": name} or nullptr (an error naming `where`).
Expected<Value> valueFromJson(const nlohmann::json& json, const std::string& where,
                              const std::function<Node*(const std::string&)>& resolve);

/// Serialises like `json.dump(indent)` (same layout: compact for a negative indent, else one
/// member per line) but writes finite floats with Python's repr text (`pythonFloatRepr`), so
/// the file reads like one written by Python: nlohmann alone writes 1e15 as "1e+15" where
/// Python writes "1000000000000000.0".
std::string dumpJson(const nlohmann::json& json, int indent = -1);

/// {"nodes": [{"name", "op", "target", "args", "kwargs"}, ...]}
nlohmann::json graphToJson(const Graph& graph);
/// Builds a graph from {"nodes": [...]}; names are kept exactly (duplicates are an error); a
/// reference to an unknown or later node is an error naming the location under `where`.
Expected<std::unique_ptr<Graph>> graphFromJson(const nlohmann::json& json, const std::string& where);

} // namespace lattice::fx
