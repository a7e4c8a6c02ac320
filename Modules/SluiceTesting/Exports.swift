// SluiceTesting's public API uses SluiceCore's types (HTTPRequest, HTTPHeaders, SluiceError) and
// SluiceTransport's SessionConfiguration: a test target that declares this product gets them too.
@_exported import SluiceCore
@_exported import SluiceTransport
