/// Reads an image's format and size from its first bytes.
enum ImageHeader {
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

    static func read(_ b: [UInt8]) -> (ImageInfo.Format, Int, Int)? {
        func be16(_ i: Int) -> Int? { i + 1 < b.count ? Int(b[i]) << 8 | Int(b[i + 1]) : nil }
        func le16(_ i: Int) -> Int? { i + 1 < b.count ? Int(b[i + 1]) << 8 | Int(b[i]) : nil }
        func be32(_ i: Int) -> Int? { i + 3 < b.count ? Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) : nil }
        func le32(_ i: Int) -> Int? { i + 3 < b.count ? Int(b[i + 3]) << 24 | Int(b[i + 2]) << 16 | Int(b[i + 1]) << 8 | Int(b[i]) : nil }
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + signature.count && Array(b[offset..<offset + signature.count]) == signature
        }

        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), let w = be32(16), let h = be32(20) {
            return (.png, w, h)
        }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)), let w = le16(6), let h = le16(8) {
            return (.gif, w, h)
        }
        if starts([0x42, 0x4D]), let w = le32(18), let h = le32(22) {
            return (.bmp, w, abs(Int(Int32(truncatingIfNeeded: h))))
        }
        if starts([0x00, 0x00, 0x01, 0x00]), b.count >= 8 {
            // ICO: the first directory entry; 0 means 256.
            return (.ico, b[6] == 0 ? 256 : Int(b[6]), b[7] == 0 ? 256 : Int(b[7]))
        }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            if starts(Array("VP8 ".utf8), at: 12), let w = le16(26), let h = le16(28) { return (.webp, w & 0x3FFF, h & 0x3FFF) }
            if starts(Array("VP8L".utf8), at: 12), b.count >= 25 {
                let bits = Int(b[21]) | Int(b[22]) << 8 | Int(b[23]) << 16 | Int(b[24]) << 24
                return (.webp, (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            }
            if starts(Array("VP8X".utf8), at: 12), b.count >= 30 {
                let w = Int(b[24]) | Int(b[25]) << 8 | Int(b[26]) << 16
                let h = Int(b[27]) | Int(b[28]) << 8 | Int(b[29]) << 16
                return (.webp, w + 1, h + 1)
            }
            return nil
        }
        if starts([0xFF, 0xD8]) {
            // Walk JPEG segments to the first start-of-frame marker.
            var i = 2
            while i + 3 < b.count {
                guard b[i] == 0xFF else { return nil }
                let marker = b[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                guard let length = be16(i + 2), length >= 2 else { return nil }
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    if let h = be16(i + 5), let w = be16(i + 7) { return (.jpeg, w, h) }
                    return nil
                }
                i += 2 + length
            }
            return nil
        }
        return nil
    }
}
