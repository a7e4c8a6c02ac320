/* The example exports only sluice_plugin_entry (declared by sluice_plugin.h); it has no headers of its own. */
