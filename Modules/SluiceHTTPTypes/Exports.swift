// SluiceHTTPTypes' public API joins SluiceCore's types (HTTPRequest, HTTPHeaders, HTTPTransport, SluiceError)
// to swift-http-types': a target that declares only this product gets SluiceCore with `import SluiceHTTPTypes`,
// and imports `HTTPTypes` itself for that package's types.
@_exported import SluiceCore
