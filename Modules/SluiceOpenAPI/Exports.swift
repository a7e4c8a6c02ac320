// SluiceOpenAPI's public API takes any SluiceCore `HTTPTransport` and speaks SluiceCore's errors: a target that
// declares only this product gets SluiceCore with `import SluiceOpenAPI`. It imports `OpenAPIRuntime` itself,
// as the generated code does (both have an `HTTPBody`: a file that imports both names one by its module).
@_exported import SluiceCore
