#pragma once
/// \file NodeFonts: the two fonts every graph node box paints with (the model graph's NodeItem
/// and the artifact op graph's ArtifactNodeItem), so both graphs read the same.

#include <QFont>

namespace lattice::studio {

/// The node's name line: 9 pt bold.
inline QFont nodeTitleFont() {
  QFont f;
  f.setPointSizeF(9.0);
  f.setBold(true);
  return f;
}

/// The node's second line (type or op): 8 pt.
inline QFont nodeSubtitleFont() {
  QFont f;
  f.setPointSizeF(8.0);
  return f;
}

} // namespace lattice::studio
