import SluiceCore

extension SluiceError.Code {
    /// Nothing stored could answer a request that forbids the network (`returnCacheDataDontLoad`, or
    /// `Cache-Control: only-if-cached`).
    public static let cacheMiss: Self = "cache.miss"
}
