// SluiceMetrics' public API uses SluiceCore's types (HTTPLayer): a target that declares only this product
// gets them with `import SluiceMetrics`; it imports `Metrics` itself to bootstrap a backend.
@_exported import SluiceCore
