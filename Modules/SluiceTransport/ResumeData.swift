import Foundation
import SluiceCore

#if canImport(Glibc)
import Glibc
#endif

/// What a cancelled download needs to continue where it stopped: the request, the partial file and
/// the response's validator. Pass it to ``SessionManager/download(resumingWith:to:ifPartialFileChanged:progress:)``.
///
/// ``SessionManager/cancel(_:producingResumeData:)`` makes it. It is `Codable`, so a program can keep it
/// across launches; the partial file stays where ``partialFilePath`` says until the download is resumed
/// (the resumed download moves it to its destination) or the caller removes it.
public struct ResumeData: Sendable, Codable, Hashable {
    /// A file's modification time, to the nanosecond, as `stat` gives it.
    public struct FileTime: Sendable, Codable, Hashable {
        /// Seconds since 1970.
        public var seconds: Int64
        /// Nanoseconds within the second.
        public var nanoseconds: Int64

        /// Creates a time.
        public init(seconds: Int64, nanoseconds: Int64) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }

        init(_ time: timespec) { self.init(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec)) }
    }

    /// What a resume does when the partial file is missing, or is not the file the resume data
    /// describes (another length or modification time).
    public enum PartialFilePolicy: Sendable, Hashable {
        /// Fail with ``SluiceError/Code/resumeDataInvalid``. The default.
        case fail
        /// Download the whole resource again; the response's ``DownloadResponse/resumption`` says so.
        case startOver
    }

    /// The request that was downloading.
    public let url: URL
    /// The headers it was sent with.
    public let headers: [String: String]
    /// The partial file.
    public let partialFilePath: String
    /// `ETag` or `Last-Modified` of the response, sent as `If-Range` so a changed resource restarts.
    public let validator: String?
    /// The partial file's length when the download stopped; `nil` in resume data made without it
    /// (the file is then taken as it is).
    public let partialFileLength: Int64?
    /// The partial file's modification time when the download stopped; `nil` when not known.
    public let partialFileModified: FileTime?

    /// Creates resume data; normally ``SessionManager/cancel(_:producingResumeData:)`` makes it.
    ///
    /// - Parameters:
    ///   - url: The URL of the download; the resumed request is a `GET` of it.
    ///   - headers: The header fields to send again. When one of them is not a valid field, the resumed
    ///     request is sent with none.
    ///   - partialFilePath: The path of the file holding the bytes received so far; the resumed download
    ///     continues it from its size.
    ///   - validator: The response's `ETag` or `Last-Modified`, sent as `If-Range`; `nil` sends no
    ///     `If-Range`.
    ///   - partialFileLength: The length the partial file must have. Default `nil`: not checked.
    ///   - partialFileModified: The modification time it must have. Default `nil`: not checked.
    public init(
        url: URL, headers: [String: String], partialFilePath: String, validator: String?,
        partialFileLength: Int64? = nil, partialFileModified: FileTime? = nil
    ) {
        self.url = url
        self.headers = headers
        self.partialFilePath = partialFilePath
        self.validator = validator
        self.partialFileLength = partialFileLength
        self.partialFileModified = partialFileModified
    }

    /// Why the partial file cannot be continued, or `nil` when it can: its length and size now.
    /// The resume data a failed download's error carries (``SluiceError/resumeData``), decoded.
    ///
    /// - Parameter data: The encoded resume data.
    /// - Throws: ``SluiceError/Code/resumeDataInvalid`` when `data` is not resume data.
    public init(resumeData data: Data) throws(SluiceError) {
        do {
            self = try JSONDecoder().decode(ResumeData.self, from: data)
        } catch {
            throw SluiceError(.resumeDataInvalid, "the bytes are not Sluice's resume data: \(error)")
        }
    }

    /// Removes the partial file, for a download that will not be resumed. A download that fails part
    /// way keeps its partial file in the temporary directory until it is resumed (the resumed download
    /// takes the file over), until this is called, or until the system cleans its temporary directory.
    public func removePartialFile() {
        unlink(partialFilePath)
    }

    func partialFileProblem() -> (reason: DownloadResumption.StartOverReason, detail: String, size: Int64)? {
        var info = stat()
        guard stat(partialFilePath, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return (.partialFileMissing, "the partial file \(partialFilePath) is missing", 0)
        }
        let size = Int64(info.st_size)
        if let partialFileLength, size != partialFileLength {
            return (
                .partialFileChanged,
                "the partial file \(partialFilePath) holds \(size) bytes, not the \(partialFileLength) of the resume data", size
            )
        }
        if let partialFileModified, partialFileModified != FileTime(info.st_mtim) {
            return (.partialFileChanged, "the partial file \(partialFilePath) was modified after the download stopped", size)
        }
        return nil
    }
}
