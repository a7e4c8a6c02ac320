import SluiceCore

extension SluiceError.Code {
    /// A request reached an ``HTTPStubs`` that has no stub for it and does not pass unmatched requests
    /// on; the message names the closest stub and what of it did not match.
    public static let noMatchingStub: Self = "testing.noMatchingStub"
}
