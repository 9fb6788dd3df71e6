//! Sensing: sensors (search and track lobes), detection checks and contacts.
