// SluiceTracing's public API uses SluiceCore's types (HTTPLayer): a target that declares only this product
// gets them with `import SluiceTracing`; it imports `Tracing` itself to bootstrap or pass a tracer.
@_exported import SluiceCore
