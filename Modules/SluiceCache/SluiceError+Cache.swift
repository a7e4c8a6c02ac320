import SluiceCore

extension SluiceError.Code {
    /// Nothing stored could answer a request that forbids the network (`returnCacheDataDontLoad`, or
    /// `Cache-Control: only-if-cached`).
    public static let cacheMiss: Self = "cache.miss"
}

extension SluiceError.Code {
    /// A cache store could not be opened or used (its directory, its index).
    public static let cacheStoreFailed: Self = "cache.storeFailed"
}
