/// Reads an image's format and size from its first bytes, refusing sizes its format does not allow.
///
/// The ranges, per format:
///
/// | format | width | height |
/// |---|---|---|
/// | PNG (IHDR) | 1 … 2³¹ − 1 | 1 … 2³¹ − 1 |
/// | GIF (logical screen) | 1 … 65535 | 1 … 65535 |
/// | BMP, BITMAPINFOHEADER and later (signed 32-bit) | 1 … 2³¹ − 1 | ±(1 … 2³¹ − 1), negative = top-down |
/// | BMP, OS/2 BITMAPCOREHEADER (unsigned 16-bit) | 1 … 65535 | 1 … 65535 |
/// | JPEG (start of frame) | 1 … 65535 | 1 … 65535 (0, "set by a DNL marker", is refused) |
/// | WebP lossy (VP8) | 1 … 16383 | 1 … 16383 |
/// | WebP lossless (VP8L) | 1 … 16384 | 1 … 16384 |
/// | WebP extended (VP8X) | 1 … 2²⁴, width × height ≤ 2³² − 1 | 1 … 2²⁴ |
/// | ICO (first directory entry) | 1 … 256 (0 means 256) | 1 … 256 |
enum ImageHeader {
    /// Why a header was refused: the body is no readable image of a known format, or it is one whose
    /// header gives a size the format does not allow.
    struct Refusal: Error {
        let message: String

        static let unreadable = Refusal(message: "the body is not a readable PNG, JPEG, GIF, BMP, WebP or ICO image")

        static func size(_ format: String, _ width: Int, _ height: Int, allowed: String) -> Refusal {
            Refusal(message: "the \(format) header gives an impossible size of \(width)×\(height) pixels; \(allowed)")
        }
    }

    static func mimeTypes(for format: ImageInfo.Format) -> Set<String> {
        switch format {
        case .png: ["image/png"]
        case .jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"]
        case .gif: ["image/gif"]
        case .bmp: ["image/bmp", "image/x-bmp", "image/x-win-bitmap", "image/x-ms-bmp"]
        case .webp: ["image/webp"]
        case .ico: ["image/ico", "image/x-icon", "image/vnd.microsoft.icon"]
        }
    }

    /// The format, width and height.
    ///
    /// - Throws: ``Refusal`` when the bytes are no readable image, or give a size outside the format's range.
    static func read(_ b: [UInt8]) throws(Refusal) -> (ImageInfo.Format, Int, Int) {
        func be16(_ i: Int) -> Int? { i + 1 < b.count ? Int(b[i]) << 8 | Int(b[i + 1]) : nil }
        func le16(_ i: Int) -> Int? { i + 1 < b.count ? Int(b[i + 1]) << 8 | Int(b[i]) : nil }
        func be32(_ i: Int) -> Int? { i + 3 < b.count ? Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) : nil }
        func le32(_ i: Int) -> Int? { i + 3 < b.count ? Int(b[i + 3]) << 24 | Int(b[i + 2]) << 16 | Int(b[i + 1]) << 8 | Int(b[i]) : nil }
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + signature.count && Array(b[offset..<offset + signature.count]) == signature
        }

        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // The IHDR chunk comes first; its width and height are unsigned 32-bit but limited to 2^31 - 1.
            guard starts(Array("IHDR".utf8), at: 12), let w = be32(16), let h = be32(20) else { throw .unreadable }
            let allowed = 1...Int(Int32.max)
            guard allowed.contains(w), allowed.contains(h) else {
                throw .size("PNG", w, h, allowed: "PNG allows 1 to 2147483647 each way")
            }
            return (.png, w, h)
        }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            guard let w = le16(6), let h = le16(8) else { throw .unreadable }
            // 16-bit fields cannot pass 65535; a zero logical screen is no size.
            guard w > 0, h > 0 else { throw .size("GIF", w, h, allowed: "GIF allows 1 to 65535 each way") }
            return (.gif, w, h)
        }
        if starts([0x42, 0x4D]) {
            guard let headerSize = le32(14) else { throw .unreadable }
            if headerSize == 12 {
                // OS/2 BITMAPCOREHEADER: unsigned 16-bit width and height, always bottom-up.
                guard let w = le16(18), let h = le16(20) else { throw .unreadable }
                guard w > 0, h > 0 else {
                    throw .size("BMP (OS/2)", w, h, allowed: "an OS/2 bitmap allows 1 to 65535 each way")
                }
                return (.bmp, w, h)
            }
            // BITMAPINFOHEADER (40) and its successors, OS/2 2.x (16 to 64): signed 32-bit width and height.
            guard headerSize >= 16, let rawWidth = le32(18), let rawHeight = le32(22) else { throw .unreadable }
            let w = Int(Int32(truncatingIfNeeded: rawWidth))
            let signedHeight = Int(Int32(truncatingIfNeeded: rawHeight))
            // A negative height is a top-down bitmap of |height| rows; Int32.min has no positive counterpart.
            guard w > 0, signedHeight != 0, signedHeight != Int(Int32.min) else {
                throw .size(
                    "BMP", w, signedHeight,
                    allowed: "BMP allows a width of 1 to 2147483647 and a height of 1 to 2147483647, negative for top-down")
            }
            return (.bmp, w, abs(signedHeight))
        }
        if starts([0x00, 0x00, 0x01, 0x00]) {
            // ICO: the first directory entry; 0 means 256, so every byte is a size. A directory with no
            // entries has none.
            guard let count = le16(4), b.count >= 8 else { throw .unreadable }
            guard count > 0 else { throw Refusal(message: "the ICO file has no image in its directory") }
            return (.ico, b[6] == 0 ? 256 : Int(b[6]), b[7] == 0 ? 256 : Int(b[7]))
        }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            if starts(Array("VP8 ".utf8), at: 12) {
                // A key frame's start code, then 14 bits of width and height (the top 2 bits are a scale).
                guard starts([0x9D, 0x01, 0x2A], at: 23), let rawWidth = le16(26), let rawHeight = le16(28) else {
                    throw .unreadable
                }
                let (w, h) = (rawWidth & 0x3FFF, rawHeight & 0x3FFF)
                guard w > 0, h > 0 else { throw .size("WebP (lossy)", w, h, allowed: "lossy WebP allows 1 to 16383 each way") }
                return (.webp, w, h)
            }
            if starts(Array("VP8L".utf8), at: 12), b.count >= 25 {
                // Signature 0x2F, then 14 bits each of width - 1 and height - 1: always 1...16384.
                guard b[20] == 0x2F else { throw .unreadable }
                let bits = Int(b[21]) | Int(b[22]) << 8 | Int(b[23]) << 16 | Int(b[24]) << 24
                return (.webp, (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            }
            if starts(Array("VP8X".utf8), at: 12), b.count >= 30 {
                // 24 bits each of canvas width - 1 and height - 1; their product must fit 32 bits.
                let w = (Int(b[24]) | Int(b[25]) << 8 | Int(b[26]) << 16) + 1
                let h = (Int(b[27]) | Int(b[28]) << 8 | Int(b[29]) << 16) + 1
                guard w * h <= Int(UInt32.max) else {
                    throw .size("WebP (extended)", w, h, allowed: "extended WebP allows a canvas of at most 4294967295 pixels")
                }
                return (.webp, w, h)
            }
            throw .unreadable
        }
        if starts([0xFF, 0xD8]) {
            // Walk JPEG segments to the first start-of-frame marker.
            var i = 2
            while i + 3 < b.count {
                guard b[i] == 0xFF else { throw .unreadable }
                let marker = b[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                guard let length = be16(i + 2), length >= 2 else { throw .unreadable }
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    guard let h = be16(i + 5), let w = be16(i + 7) else { throw .unreadable }
                    // Width 0 is not allowed; height 0 defers the height to a DNL marker after the first
                    // scan, which a header read cannot reach (and most decoders refuse).
                    guard w > 0, h > 0 else {
                        throw .size("JPEG", w, h, allowed: "JPEG allows 1 to 65535 each way (a height set by a DNL marker is not read)")
                    }
                    return (.jpeg, w, h)
                }
                i += 2 + length
            }
            throw .unreadable
        }
        throw .unreadable
    }
}
