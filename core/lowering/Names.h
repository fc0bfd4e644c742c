#pragma once
/// \file The name sanitisers of the torch-lattice exporter (lowering.md §5.6): SSA/symbol names
/// and storage-key stems derived from module paths. Type strings live in MlirTypes.h.

#include <string>
#include <string_view>

namespace lattice {

/// `_safe_value_name(x)` (§5.6): every run of bytes outside `[0-9A-Za-z_]` becomes one `_`,
/// leading and trailing `_` are stripped, "" becomes `value`, and a leading digit gets `v_`.
/// Examples: `0.1.main.0` → `v_0_1_main_0`, `my-layer/conv` → `my_layer_conv`, `...` → `value`.
std::string safeValueName(std::string_view name);

/// `_safe_key(x)` (§5.6): every run of bytes outside `[0-9A-Za-z_.]` becomes one `_`, leading and
/// trailing `.` and `_` are stripped, "" becomes `layer`. Dots are kept (`.a..b.` → `a..b`); no
/// digit prefix.
std::string safeKey(std::string_view name);

/// The storage key of parameter `parameter` of module `moduleName`: `safeKey(moduleName) + "." +
/// parameter` (§5.7 step 1), e.g. `0.1.main.0` + `weight` → `0.1.main.0.weight`.
std::string weightStorageKey(std::string_view moduleName, std::string_view parameter);

} // namespace lattice
