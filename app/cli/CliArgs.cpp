#include "CliArgs.h"

namespace lattice::cli {

std::string ParsedArgs::value(const std::string& name, const std::string& fallback) const {
  auto it = options.find(name);
  return it == options.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& ParsedArgs::values(const std::string& name) const {
  static const std::vector<std::string> none;
  auto it = options.find(name);
  return it == options.end() ? none : it->second;
}

bool parseArgs(const std::vector<std::string>& args, const CommandSpec& spec, ParsedArgs& out,
               std::string& error) {
  bool onlyPositional = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (onlyPositional || arg.size() < 2 || arg.compare(0, 2, "--") != 0) {
      out.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      onlyPositional = true;
      continue;
    }
    std::string name = arg.substr(2);
    std::string inlineValue;
    bool hasInline = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasInline = true;
    }
    if (spec.flags.count(name)) {
      if (hasInline) {
        error = "option '--" + name + "' takes no value";
        return false;
      }
      out.flags.insert(name);
    } else if (spec.options.count(name)) {
      if (hasInline) {
        out.options[name].push_back(inlineValue);
      } else if (i + 1 < args.size()) {
        out.options[name].push_back(args[++i]);
      } else {
        error = "option '--" + name + "' expects a value";
        return false;
      }
    } else {
      error = "unknown option '--" + name + "'";
      return false;
    }
  }
  if (out.positional.size() < spec.minPositional) {
    error = "missing argument";
    return false;
  }
  if (out.positional.size() > spec.maxPositional) {
    error = "unexpected argument '" + out.positional[spec.maxPositional] + "'";
    return false;
  }
  return true;
}

} // namespace lattice::cli
