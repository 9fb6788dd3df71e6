//! Flyout: missiles, gun rounds, rockets and bombs in flight.
