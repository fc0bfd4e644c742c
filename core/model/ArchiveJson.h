#pragma once
/// \file Internal to the archive reader: checked access to model.json's structure. Every failure
/// throws lattice::Exception whose message starts with the JSON location ("modules[3].type:
/// expected a string, got an integer"); the reader's entry point adds the file name. Not installed.

#include "model/Model.h"
#include "support/Expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace lattice::archive {

/// model.json is read order-preserving: attribute, parameter and kwarg order are meaningful.
using OJson = nlohmann::ordered_json;

/// Throws Exception{"where: what"} (just `what` when `where` is empty).
[[noreturn]] void fail(const std::string& where, const std::string& what);

/// "modules[3]" + "type" → "modules[3].type"; "" + "modules" → "modules".
std::string member(const std::string& where, const std::string& key);
/// "modules" + 3 → "modules[3]".
std::string element(const std::string& where, std::size_t index);

/// The JSON type as messages name it ("a string", "an integer", "null", ...), as fx does.
std::string typeName(const OJson& json);

/// `object[key]`; fails naming `where` when the key is missing.
const OJson& require(const OJson& object, const char* key, const std::string& where);
/// `object[key]` or nullptr when missing.
const OJson* optional(const OJson& object, const char* key);

void expectObject(const OJson& json, const std::string& where);
void expectArray(const OJson& json, const std::string& where);
std::string expectString(const OJson& json, const std::string& where);
bool expectBool(const OJson& json, const std::string& where);
int64_t expectInt(const OJson& json, const std::string& where);

/// `example_inputs` (an array) at `where`.
std::vector<InputSpec> parseExampleInputs(const OJson& json, const std::string& where);
/// `lowering` (an object) at `where`; absent keys take the spec's defaults.
LoweringOptions parseLowering(const OJson& json, const std::string& where);

} // namespace lattice::archive
