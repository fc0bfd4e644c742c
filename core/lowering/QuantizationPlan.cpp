// Quantization plans: the per-layer weight format, its names, its byte size as quantizeAffine
// stores it, glob matching, and the plan file's reader and writer (order-preserving JSON).

#include "lowering/QuantizationPlan.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lattice {
namespace {

using OJson = nlohmann::ordered_json;

constexpr const char* kPlanFormat = "lattice-quantization-plan";
constexpr int kPlanVersion = 1;

bool acceptedGroupSize(std::int64_t g) { return g == 32 || g == 64 || g == 128; }

std::string groupSizeError(const std::string& got) {
  return "group_size must be 32, 64 or 128 (the sizes mlx-lattice accepts), got " + got;
}

std::string jsonTypeName(const OJson& j) {
  switch (j.type()) {
  case OJson::value_t::null: return "null";
  case OJson::value_t::object: return "an object";
  case OJson::value_t::array: return "an array";
  case OJson::value_t::string: return "a string";
  case OJson::value_t::boolean: return "a boolean";
  case OJson::value_t::number_integer:
  case OJson::value_t::number_unsigned: return "an integer";
  case OJson::value_t::number_float: return "a number";
  default: return "a value";
  }
}

// A format given as an object or a string, at `where` ("default", `layers."stem.0"`); errors
// are returned as "where: what".
Expected<WeightFormat> parseFormatJson(const OJson& j, const std::string& where) {
  if (j.is_string()) {
    Expected<WeightFormat> f = parseWeightFormat(j.get<std::string>());
    if (!f) return makeError(where + ": " + f.message());
    return f;
  }
  if (!j.is_object())
    return makeError(where + ": expected a format (\"dense\", \"int8\", \"int4\" or an object with kind, "
                     "group_size, scale_dtype), got " + jsonTypeName(j));
  const OJson* kind = nullptr;
  const OJson* group = nullptr;
  const OJson* scale = nullptr;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "kind") kind = &it.value();
    else if (it.key() == "group_size") group = &it.value();
    else if (it.key() == "scale_dtype") scale = &it.value();
    else
      return makeError(where + ": unknown key '" + it.key() + "' (expected kind, group_size, scale_dtype)");
  }
  if (!kind) return makeError(where + ": missing kind (dense, int8 or int4)");
  if (!kind->is_string()) return makeError(where + ": kind must be a string, got " + jsonTypeName(*kind));
  const std::string k = kind->get<std::string>();
  WeightFormat f;
  if (k == "int8") f.bits = 8;
  else if (k == "int4") f.bits = 4;
  else if (k != "dense")
    return makeError(where + ": unknown kind '" + k + "' (expected dense, int8 or int4)");
  if (group) {
    if (!group->is_number_integer()) return makeError(where + ": " + groupSizeError(group->dump()));
    const std::int64_t g = group->get<std::int64_t>();
    if (!acceptedGroupSize(g)) return makeError(where + ": " + groupSizeError(std::to_string(g)));
    f.groupSize = g;
  }
  if (scale) {
    const std::string s = scale->is_string() ? scale->get<std::string>() : scale->dump();
    if (!scale->is_string() || (s != "f16" && s != "f32"))
      return makeError(where + ": scale_dtype must be 'f16' or 'f32', got " + s);
    f.scaleDtype = s;
  }
  if (f.dense()) f = WeightFormat::denseFormat();
  return f;
}

OJson formatJson(const WeightFormat& f) {
  if (f.dense()) return "dense";
  if (f.groupSize == 32 && f.scaleDtype == "f16") return f.kind();
  OJson o = OJson::object();
  o["kind"] = f.kind();
  o["group_size"] = f.groupSize;
  o["scale_dtype"] = f.scaleDtype;
  return o;
}

} // namespace

std::string WeightFormat::name() const {
  if (dense()) return "dense";
  std::string n = kind();
  if (scaleDtype != "f16") return n + "/g" + std::to_string(groupSize) + "/" + scaleDtype;
  if (groupSize != 32) n += "/g" + std::to_string(groupSize);
  return n;
}

Expected<WeightFormat> parseWeightFormat(std::string_view text) {
  const auto bad = [&] {
    return makeError("unknown weight format '" + std::string(text) +
                     "' (expected dense, int8 or int4, optionally /gGROUP and /f16 or /f32, e.g. int4/g64)");
  };
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  WeightFormat f;
  if (parts[0] == "dense") {
    if (parts.size() != 1) return bad();
    return f;
  }
  if (parts[0] == "int8") f.bits = 8;
  else if (parts[0] == "int4") f.bits = 4;
  else return bad();
  bool sawGroup = false, sawScale = false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string_view p = parts[i];
    if ((p == "f16" || p == "f32") && !sawScale) {
      f.scaleDtype = std::string(p);
      sawScale = true;
    } else if (p.size() > 1 && p[0] == 'g' && !sawGroup) {
      std::int64_t g = 0;
      for (char c : p.substr(1)) {
        if (c < '0' || c > '9' || g > 1000000) return bad();
        g = g * 10 + (c - '0');
      }
      if (!acceptedGroupSize(g))
        return makeError("weight format '" + std::string(text) + "': " + groupSizeError(std::to_string(g)));
      f.groupSize = g;
      sawGroup = true;
    } else {
      return bad();
    }
  }
  return f;
}

std::uint64_t weightBytes(const std::vector<std::int64_t>& shape, const WeightFormat& format,
                          std::uint64_t denseElementBytes) {
  std::uint64_t numel = 1;
  for (std::int64_t d : shape) numel *= static_cast<std::uint64_t>(d < 0 ? 0 : d);
  if (format.dense() || shape.empty()) return numel * denseElementBytes;
  // The row view of quantizeAffine: K·C_out rows of C_in columns.
  std::uint64_t rows = 0, in = 0;
  if (shape.size() == 2) {
    rows = static_cast<std::uint64_t>(shape[0]);
    in = static_cast<std::uint64_t>(shape[1]);
  } else if (shape.size() == 3) { // (K, C_in, C_out)
    rows = static_cast<std::uint64_t>(shape[0] * shape[2]);
    in = static_cast<std::uint64_t>(shape[1]);
  } else {
    in = static_cast<std::uint64_t>(shape.back());
    rows = in == 0 ? 0 : numel / in;
  }
  const std::uint64_t g = static_cast<std::uint64_t>(format.groupSize);
  const std::uint64_t storage = (in + g - 1) / g * g;
  const std::uint64_t words = storage * static_cast<std::uint64_t>(format.bits) / 32;
  const std::uint64_t scaleBytes = format.scaleDtype == "f32" ? 4 : 2;
  return rows * words * 4 + 2 * rows * (storage / g) * scaleBytes;
}

bool globMatch(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || (pattern[p] != '*' && pattern[p] == text[t]))) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

QuantizationPlan QuantizationPlan::uniform(WeightFormat format) {
  QuantizationPlan plan;
  plan.defaultFormat = format.dense() ? WeightFormat::denseFormat() : std::move(format);
  return plan;
}

Expected<QuantizationPlan> QuantizationPlan::parse(const std::string& text, const std::string& fileName) {
  OJson root;
  try {
    root = OJson::parse(text);
  } catch (const OJson::exception& e) {
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0) {
      const std::size_t close = what.find("] ");
      if (close != std::string::npos) what = what.substr(close + 2);
    }
    return makeError(fileName + ": " + what);
  }
  if (!root.is_object())
    return makeError(fileName + ": expected a JSON object (a quantization plan), got " + jsonTypeName(root));
  QuantizationPlan plan;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    const OJson& value = it.value();
    if (key == "format") {
      if (!value.is_string() || value.get<std::string>() != kPlanFormat)
        return makeError(fileName + ": format must be \"" + kPlanFormat + "\", got " + value.dump());
    } else if (key == "version") {
      if (!value.is_number_integer() || value.get<std::int64_t>() != kPlanVersion)
        return makeError(fileName + ": unsupported version " + value.dump() + " (this build reads version " +
                         std::to_string(kPlanVersion) + ")");
    } else if (key == "default") {
      Expected<WeightFormat> f = parseFormatJson(value, fileName + ": default");
      if (!f) return f.error();
      plan.defaultFormat = std::move(*f);
    } else if (key == "layers") {
      if (!value.is_object())
        return makeError(fileName + ": layers: expected an object of module path or pattern -> format, got " +
                         jsonTypeName(value));
      for (auto layer = value.begin(); layer != value.end(); ++layer) {
        const std::string where = fileName + ": layers." + OJson(layer.key()).dump();
        if (layer.key().empty()) return makeError(where + ": empty module path");
        Expected<WeightFormat> f = parseFormatJson(layer.value(), where);
        if (!f) return f.error();
        plan.entries.push_back({layer.key(), std::move(*f)});
      }
    } else {
      return makeError(fileName + ": unknown key '" + key + "' (expected format, version, default, layers)");
    }
  }
  return plan;
}

Expected<QuantizationPlan> QuantizationPlan::readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(path + ": cannot read file: " + std::strerror(errno ? errno : ENOENT));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return makeError(path + ": cannot read file: " + std::strerror(errno ? errno : EIO));
  return parse(text.str(), path);
}

std::string QuantizationPlan::toJson() const {
  OJson root = OJson::object();
  root["format"] = kPlanFormat;
  root["version"] = kPlanVersion;
  root["default"] = formatJson(defaultFormat);
  OJson layers = OJson::object();
  // A pattern given twice decides where it last appears: only that occurrence is written.
  for (std::size_t i = 0; i < entries.size(); ++i) {
    bool later = false;
    for (std::size_t j = i + 1; j < entries.size() && !later; ++j) later = entries[j].pattern == entries[i].pattern;
    if (!later) layers[entries[i].pattern] = formatJson(entries[i].format);
  }
  root["layers"] = std::move(layers);
  return root.dump(2) + "\n";
}

int QuantizationPlan::entryFor(std::string_view layer) const {
  int pattern = -1;
  for (std::size_t i = entries.size(); i-- > 0;) {
    const Entry& e = entries[i];
    if (!e.glob()) {
      if (e.pattern == layer) return static_cast<int>(i);
    } else if (pattern < 0 && globMatch(e.pattern, layer)) {
      pattern = static_cast<int>(i);
    }
  }
  return pattern;
}

const WeightFormat& QuantizationPlan::formatFor(std::string_view layer) const {
  const int i = entryFor(layer);
  return i < 0 ? defaultFormat : entries[static_cast<std::size_t>(i)].format;
}

} // namespace lattice
