// SluiceCache's public API uses SluiceCore's types (HTTPRequest, HTTPHeaders, HTTPLayer, SluiceError):
// a target that declares only this product gets them with `import SluiceCache`.
@_exported import SluiceCore
