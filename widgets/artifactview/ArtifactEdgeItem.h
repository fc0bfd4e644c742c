#pragma once
/// \file ArtifactEdgeItem: an edge of an artifact's op graph: the model graph's EdgeItem, left
/// unpainted when zoomed so far out that curves would be sub-pixel noise (an overview of
/// 100 000 edges then paints in a fraction of the time).

#include "graph/EdgeItem.h"

namespace lattice::studio {

class ArtifactEdgeItem : public EdgeItem {
public:
  using EdgeItem::EdgeItem;

  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  /// Below this level of detail (scene units per pixel inverse) edges are not painted.
  static constexpr qreal minimumLevelOfDetail() { return 0.08; }
};

} // namespace lattice::studio
