#pragma once
/// \file Graph layout: plain input and result structs and one Graphviz `dot` call that turns a
/// node/edge/cluster graph into node boxes, Bézier edge paths and cluster boxes.
///
/// Units are points (1/72 inch; one scene unit in the studio). Result coordinates have y
/// pointing DOWN and the drawing's bounding box at (0, 0), ready for a QGraphicsScene. Graphviz
/// only reserves space: it sees fixed-size boxes with empty labels; the items paint the text.

#include "support/Expected.h"

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace lattice {

/// A point in layout coordinates (points, y down).
struct LayoutPoint {
  double x = 0;
  double y = 0;
};

/// An axis-aligned rectangle given by its top-left corner (y down) and size.
struct LayoutRect {
  double left = 0;
  double top = 0;
  double width = 0;
  double height = 0;

  double right() const { return left + width; }
  double bottom() const { return top + height; }
  LayoutPoint center() const { return {left + width / 2, top + height / 2}; }
  /// True when `r` lies inside this rectangle, allowing `tolerance` points of slack.
  bool contains(const LayoutRect& r, double tolerance = 0) const;
  /// True when the interiors overlap by more than `tolerance` points in both directions.
  bool intersects(const LayoutRect& r, double tolerance = 0) const;
};

/// A size in points.
struct LayoutSize {
  double width = 0;
  double height = 0;
};

// ---------------------------------------------------------------------------------------------
// Input

/// One node: a fixed-size box. `width`/`height` are the points reserved for what the item paints.
struct LayoutNode {
  std::string id;      ///< unique among nodes; any string (Graphviz sees it only as a name)
  double width = 54;   ///< points
  double height = 36;  ///< points
  std::string cluster; ///< id of the innermost cluster holding the node; empty: top level
};

/// One directed edge between node ids. Parallel edges are laid out as given.
struct LayoutEdge {
  std::string from;
  std::string to;
  int count = 1; ///< how many underlying edges this one stands for (passed through, not laid out)
};

/// A cluster: a box around its nodes and sub-clusters, with a band on top for its label.
struct LayoutCluster {
  std::string id;         ///< unique among clusters
  std::string label;      ///< passed through to the result for painting; Graphviz never sees it
  std::string parent;     ///< enclosing cluster id; empty: top level
  double labelWidth = 0;  ///< points reserved for the label at the top of the box
  double labelHeight = 0; ///< points
};

struct LayoutGraph {
  std::vector<LayoutNode> nodes;
  std::vector<LayoutEdge> edges;
  std::vector<LayoutCluster> clusters;
};

/// Graphviz `rankdir`: the direction edges point in.
enum class RankDir : unsigned char { TopToBottom, LeftToRight, BottomToTop, RightToLeft };

/// "TB", "LR", "BT", "RL".
const char* rankDirName(RankDir dir);

struct LayoutOptions {
  RankDir rankDir = RankDir::TopToBottom;
  double nodeSep = 18;      ///< points between nodes of one rank (Graphviz `nodesep`)
  double rankSep = 36;      ///< points between ranks (Graphviz `ranksep`)
  double clusterMargin = 8; ///< points between a cluster's border and its content
};

// ---------------------------------------------------------------------------------------------
// Result

/// A laid-out node: center and the size asked for in LayoutNode (y down).
struct NodeBox {
  std::string id;
  double cx = 0;
  double cy = 0;
  double width = 0;
  double height = 0;

  LayoutRect rect() const { return {cx - width / 2, cy - height / 2, width, height}; }
};

/// A laid-out edge as Graphviz's `pos` spline: `points` holds a start point followed by 3k
/// cubic Bézier control points (1 + 3k points; draw with moveTo(p0), cubicTo(p1, p2, p3), ...).
/// The spline stops short of the head node when an arrowhead is drawn: `arrowHead` is then the
/// tip of the arrowhead (Graphviz's `e,x,y`), on the head node's border; draw the head from the
/// last point to it. `arrowTail` likewise for an arrow at the tail (Graphviz's `s,x,y`; unused
/// with the default attributes).
struct EdgePath {
  std::string from;
  std::string to;
  int count = 1;
  std::vector<LayoutPoint> points;
  std::optional<LayoutPoint> arrowHead;
  std::optional<LayoutPoint> arrowTail;
};

/// A laid-out cluster; the label band is the top `labelHeight` points of `box` (inside margin).
struct ClusterBox {
  std::string id;
  std::string label;
  std::string parent;
  LayoutRect box;
};

struct LayoutResult {
  std::vector<NodeBox> nodes;       ///< in input order
  std::vector<EdgePath> edges;      ///< in input order
  std::vector<ClusterBox> clusters; ///< in input order
  LayoutRect bounds;                ///< the whole drawing; left = top = 0

  /// nullptr when absent (linear search).
  const NodeBox* findNode(const std::string& id) const;
  const ClusterBox* findCluster(const std::string& id) const;
};

/// The most nodes one computeLayout call is given: `dot` is superlinear and cannot be
/// interrupted, so larger graphs are split (the hierarchical view) or laid out another way (the
/// artifact view's layered layout).
constexpr std::size_t kMaxGraphvizNodes = 800;

/// Lays out `graph` with Graphviz `dot` in-process (cgraph + gvc). Thread-safe: one
/// process-wide lock serialises the Graphviz part, which cannot be interrupted, so callers keep
/// graphs small (the view layer bounds every call to kMaxGraphvizNodes). `cancel` is checked before and
/// after that part; when set, the result is the error "layout cancelled". Other errors: invalid
/// input (duplicate or unknown ids, a cluster cycle, a negative size) and Graphviz failures.
Expected<LayoutResult> computeLayout(const LayoutGraph& graph, const LayoutOptions& options = {},
                                     const std::atomic<bool>* cancel = nullptr);

/// The version of the Graphviz library that lays graphs out ("2.43.0"), for Help ▸ About.
std::string graphvizVersion();

} // namespace lattice
