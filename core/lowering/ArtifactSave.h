#pragma once
/// \file Atomic writing of a lattice artifact directory (lowering.md §6.3) and the post-write
/// payload validation (§6.4).

#include "dialect/ArtifactFiles.h"
#include "support/Expected.h"
#include "tensor/Safetensors.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace lattice {

/// Options of saveArtifactFiles.
struct SaveOptions {
  /// Replace an existing artifact. When false an existing target is the error
  /// "artifact directory already exists: <path>".
  bool clean = true;
  /// Replace an existing target even when it holds entries that are not part of a lattice
  /// artifact (see foreignArtifactEntries). Without it such a target is refused and kept whole.
  bool force = false;
  /// Run validateArtifactPayload on the written files before swapping them in.
  bool validate = true;
  /// Called while weights.safetensors is written with (bytesWritten, totalBytes); returning
  /// false cancels the save ("artifact save cancelled: <path>") and leaves the previous
  /// artifact untouched.
  std::function<bool(uint64_t bytesWritten, uint64_t totalBytes)> progress;
  /// Test hook: consulted at named points and fails the save with
  /// "injected fault at '<point>'" when it returns true. Points, in order: "after-graph"
  /// (graph.mlir written), "during-weights" (at every progress report, `bytes` = bytes written
  /// so far), "before-swap" (temporary directory complete and validated), "after-backup" (the
  /// new artifact and the previous one swapped, or, without RENAME_EXCHANGE, the previous one
  /// moved aside and the new one not yet in place), "sync-parent" (the new artifact in place,
  /// its parent directory about to be synced: true makes that sync fail as with EIO, which is
  /// a warning, not a failure). `bytes` is 0 except for "during-weights".
  std::function<bool(std::string_view point, uint64_t bytes)> injectFault;
  /// Test hook: swap with two renames even where renameat2(RENAME_EXCHANGE) works.
  bool noExchange = false;
  /// Called with each warning of a save that goes on: an entry beside the target named like an
  /// interrupted save's leftover that the save leaves alone, or a problem after the new artifact
  /// is in place (see saveArtifactFiles). Unset: warnings are dropped.
  std::function<void(const std::string& message)> warn;
};

/// The entries of an existing directory that are not part of a lattice artifact, as paths
/// relative to `dir` in sorted order (a directory as "name/", followed by what it holds when
/// `recursive`), at most `limit` of them. A lattice artifact holds only the regular files
/// graph.mlir and weights.safetensors. Empty when `dir` is empty, an artifact, or missing.
std::vector<std::string> foreignArtifactEntries(const std::string& dir, std::size_t limit,
                                                bool recursive = false);

/// The checks a save makes on its target before it writes anything, for front ends that want
/// to refuse before a long lowering: the path names a directory to create or one to replace
/// (`options.clean`), a directory to replace holds only a lattice artifact unless
/// `options.force` ("<dir>: not replaced: it holds files that are not part of a lattice
/// artifact: a.txt, sub/"; see kNotAnArtifactMarker), and its entries can be removed ("<dir>:
/// cannot replace it: ...").
Status checkArtifactTarget(const std::string& artifactDir, const SaveOptions& options = {});

/// The text every refusal of a target with foreign entries contains, so a front end can add
/// how to force it.
inline constexpr std::string_view kNotAnArtifactMarker = "not part of a lattice artifact";

/// Writes `artifactDir` atomically: graph.mlir and weights.safetensors (metadata
/// {"format": "torch"}) go into a fresh temporary directory `.<name>-XXXXXX` beside the target
/// (created with the modes the umask gives: 0755 and 0644 under umask 022), are fsynced and
/// validated, then swapped with the old target in one renameat2(RENAME_EXCHANGE) where the
/// filesystem has it (else the old target is renamed aside to `<temp>.previous` and the new one
/// renamed into place), and the old one is removed. On any failure the temporary directory is
/// removed and the previous artifact is put back unchanged, so an error means the target is as
/// it was (should putting it back fail too, the error says where the previous artifact was
/// left). The parent directory is created when missing. The target is checked first
/// (checkArtifactTarget). Deliberate difference from the reference: a target that exists and is
/// not a directory is refused ("artifact path exists and is not a directory: <path>") instead
/// of being replaced, and so is one with foreign entries unless forced.
///
/// While it runs, a save keeps a locked record `.<name>-XXXXXX.save` beside its directories,
/// made before the first of them and removed after the last. A save that was killed leaves its
/// record with what it left, and the next save of the same target recovers exactly that: a
/// previous artifact moved aside returns to a missing target, and the save's other directories
/// are removed when they hold only artifact files. A directory named like a leftover without a
/// record of ours beside it (a user's folder `.<name>-qwerty.previous`, a copy of a leftover, or
/// what an older version left), or a recorded one that holds other files, is left alone and
/// named in a warning (`options.warn`); one that a running save holds is skipped.
///
/// Once the new artifact is in place the save succeeds; a failure to sync the parent directory
/// ("<dir>: the new artifact is in place, but its durability could not be confirmed: cannot
/// sync directory <parent>: <reason>") or to remove the previous artifact is a warning.
Status saveArtifactFiles(const std::string& artifactDir, const std::string& mlirText,
                         const std::vector<NamedTensor>& weights, const SaveOptions& options = {});

/// Every `storage_key = "<value>"` of the text in order of appearance (spaces, tabs and line
/// breaks allowed around `=`, value non-empty and without quotes); one linear scan, no MLIR
/// parsing.
std::vector<std::string> extractStorageKeys(std::string_view mlirText);

/// The §6.4 checks in linear time, in the reference's order and with its messages:
/// "artifact graph is missing contract metadata: <items joined by ', '>",
/// "artifact weight is missing storage key '<key>'" (the first missing key in graph order),
/// "artifact contains unreferenced weights: <sorted keys joined by ', '>". A stored key is
/// referenced when it equals a storage key or starts with `<storage key>.`.
Status validateArtifactPayload(std::string_view mlirText,
                               const std::vector<std::string>& storedKeys);

} // namespace lattice
