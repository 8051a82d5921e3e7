//! Placeholder: the TOE and link model (being written).
