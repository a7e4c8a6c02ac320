// SluiceCookies' public API uses SluiceCore's types (HTTPHeaders, SluiceError): a target that declares only this
// product gets them with `import SluiceCookies`.
@_exported import SluiceCore
