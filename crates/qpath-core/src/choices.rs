//! The choices the page offers and the verdicts it shows beside its controls, computed here so that the page holds
//! no rule of its own.
