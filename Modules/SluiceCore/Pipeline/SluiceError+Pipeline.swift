import Foundation

extension SluiceError.Code {
    // The codes the pipeline's layer contract names (``HTTPLayer``, ``HTTPTransport``): declared here, so a
    // layer or transport written outside this package can throw and match them.

    /// The whole transfer took longer than the resource timeout.
    public static let resourceTimedOut: Self = "transport.resourceTimedOut"
    /// More redirects than allowed, or a redirect loop.
    public static let tooManyRedirects: Self = "transport.tooManyRedirects"
    /// A redirect was refused by the redirect policy, or its `Location` was unusable.
    public static let redirectRefused: Self = "transport.redirectRefused"
    /// A downloaded file could not be written or moved to its destination.
    public static let downloadFailed: Self = "transport.downloadFailed"
    /// Any other transport failure; ``SluiceError/library`` holds libcurl's code and message.
    public static let transportFailed: Self = "transport.failed"
}
