#pragma once
/// \file The one list of a layer's formats as checkable menu entries (Dense, int8, int4, ...):
/// the graph's Quantization submenu and the dock's row menu both add it. Choosing an entry is
/// one undoable step (QuantizationState::setLayerFormat).

#include "quant/QuantizationState.h"

#include <QAction>
#include <QActionGroup>
#include <QCoreApplication>
#include <QMenu>
#include <QString>

namespace lattice::studio {

/// Adds layer `layer`'s choices to `menu`, the current one checked; each action is named
/// `objectPrefix` + its kind (`quant.int4`).
inline void addLayerFormatActions(QMenu* menu, QuantizationState* state, int layer, const QString& objectPrefix) {
  auto* group = new QActionGroup(menu);
  for (const WeightFormat& f : state->choicesFor(layer)) {
    QAction* a = menu->addAction(f.dense() ? QCoreApplication::translate("QuantizationPanel", "&Dense")
                                           : QString::fromStdString(f.name()));
    a->setObjectName(objectPrefix + QString::fromStdString(f.kind()));
    a->setCheckable(true);
    a->setChecked(state->formats()[std::size_t(layer)] == f);
    group->addAction(a);
    QObject::connect(a, &QAction::triggered, state, [state, layer, f] { state->setLayerFormat(layer, f); });
  }
}

} // namespace lattice::studio
