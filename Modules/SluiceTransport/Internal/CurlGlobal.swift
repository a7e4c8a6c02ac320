import CCurl

/// libcurl's process-wide initialization, done once before the first curl call.
enum CurlGlobal {
    private static let initialization: CURLcode = curl_global_init(SLUICE_CURL_GLOBAL_ALL)

    /// Initializes libcurl if that has not happened yet; returns whether it succeeded.
    @discardableResult
    static func ensureInitialized() -> Bool { initialization == CURLE_OK }
}
