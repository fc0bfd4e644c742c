// ArtifactEdgeItem: a level-of-detail cut-off in front of EdgeItem's painting.

#include "artifactview/ArtifactEdgeItem.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace lattice::studio {

void ArtifactEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
  if (!isHighlighted() &&
      option->levelOfDetailFromTransform(painter->worldTransform()) < minimumLevelOfDetail())
    return;
  EdgeItem::paint(painter, option, widget);
}

} // namespace lattice::studio
