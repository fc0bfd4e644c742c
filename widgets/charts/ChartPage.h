#pragma once
/// \file The two pages of a chart widget: a message (no data yet, an error) or the chart.

#include <QLabel>
#include <QStackedLayout>
#include <QWidget>

namespace lattice::studio {

/// Styles `message` (centred, wrapped, on the base colour) and stacks it with `view` in `owner`:
/// page 0 the message, page 1 the view.
inline QStackedLayout* stackWithMessage(QWidget* owner, QLabel* message, QWidget* view) {
  message->setAlignment(Qt::AlignCenter);
  message->setWordWrap(true);
  message->setMargin(8);
  message->setAutoFillBackground(true);
  message->setBackgroundRole(QPalette::Base);
  auto* stack = new QStackedLayout(owner);
  stack->setContentsMargins(0, 0, 0, 0);
  stack->addWidget(message);
  stack->addWidget(view);
  return stack;
}

} // namespace lattice::studio
