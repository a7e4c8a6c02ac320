import Foundation
import SluiceCore

/// An image's format and pixel size, read from its header, with its bytes.
public struct ImageInfo: Sendable, Hashable {
    /// An image format Sluice recognises by signature.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// PNG
        case png
        /// JPEG
        case jpeg
        /// GIF
        case gif
        /// BMP
        case bmp
        /// WebP
        case webp
        /// ICO (Windows icon)
        case ico
    }

    /// The format.
    public let format: Format
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The image bytes as received.
    public let data: Data
}

/// Validates an image response and reads its format and dimensions from the header, without decoding
/// pixels. Accepts AFNetworking's image types plus WebP; a body whose signature does not match its
/// `Content-Type` is ``SluiceError/Code/invalidImage``.
public struct ImageResponseSerializer: ResponseSerializer {
    /// The validation rules.
    public var validation: HTTPResponseSerializer

    /// AFNetworking's image types, plus `image/webp`.
    public static let defaultContentTypes = [
        "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon", "image/bmp",
        "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap", "image/webp",
    ].compactMap { MediaType($0) }

    /// Creates a serializer accepting ``defaultContentTypes`` and 200–299.
    public init(validation: HTTPResponseSerializer = HTTPResponseSerializer(acceptableContentTypes: ImageResponseSerializer.defaultContentTypes)) {
        self.validation = validation
    }

    /// The acceptable content types.
    public var acceptableMediaTypes: [MediaType]? { validation.acceptableContentTypes }

    /// Validates and reads the header; `nil` for an empty body.
    ///
    /// - Throws: The validation errors, or ``SluiceError/Code/invalidImage``.
    public func serialize(request: HTTPRequest?, response: HTTPResponse, body: Data?) throws(SluiceError) -> ImageInfo? {
        try validation.validate(request: request, response: response, body: body)
        guard let body, !body.isEmpty else { return nil }
        guard let (format, width, height) = ImageHeader.read(Array(body.prefix(64 * 1024))) else {
            throw SluiceError(.invalidImage, "the body is not a readable PNG, JPEG, GIF, BMP, WebP or ICO image",
                              request: request, response: response, body: body)
        }
        if let type = response.mimeType, !ImageHeader.mimeTypes(for: format).contains(type) {
            throw SluiceError(.invalidImage, "the body is \(format.rawValue) but Content-Type says \(type)",
                              request: request, response: response, body: body)
        }
        return ImageInfo(format: format, width: width, height: height, data: body)
    }
}
