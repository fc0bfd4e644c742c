#pragma once
/// \file The figure badge of a graph box: an overlay's number (a node's time, its error) in a
/// small pill on the middle of the box's bottom edge, painted by the model graph's NodeItem and the
/// artifact op graph's ArtifactNodeItem alike. It is only painted when its text can be read at
/// the painter's level of detail; the tooltip carries the figure at any zoom.

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QString>

class QPainter;

namespace lattice::studio {

/// The badge's font (7.5 pt, medium weight).
QFont figureFont();

/// The badge's rectangle for `text` on a box whose face is `face`: centred on its bottom edge,
/// hanging mostly below it.
QRectF figureBadgeRect(const QRectF& face, const QString& text);

/// True when text in figureFont() is readable at level of detail `lod` (scene to device scale).
bool figureReadable(qreal lod);

/// Paints `text` in its badge on `face`, tinted by `heat` (invalid: neutral), when `lod` lets it
/// be read; returns whether it painted. Nothing for an empty text.
bool paintFigureBadge(QPainter* painter, const QRectF& face, const QString& text, const QColor& heat,
                      qreal lod);

} // namespace lattice::studio
