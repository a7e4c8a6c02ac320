import Foundation
import SluiceCore

#if canImport(Glibc)
import Glibc
#endif

extension SessionManager {
    /// The file a download is written to: a new temporary file, or the partial file of `resumeData`
    /// (continued from its size), and why a resume starts over before asking the server (its partial
    /// file missing or changed, with ``ResumeData/PartialFilePolicy/startOver``).
    ///
    /// - Throws: ``SluiceError/Code/resumeDataInvalid`` for a missing or changed partial file with
    ///   ``ResumeData/PartialFilePolicy/fail``.
    static func downloadSink(
        resuming resume: (data: ResumeData, policy: ResumeData.PartialFilePolicy)?, request: HTTPRequest
    ) throws(SluiceError) -> (FileSink, DownloadResumption.StartOverReason?) {
        guard let (resumeData, policy) = resume else { return (FileSink(path: FileSink.temporaryPath(), resumeOffset: 0), nil) }
        guard let problem = resumeData.partialFileProblem() else {
            var info = stat()
            let offset = stat(resumeData.partialFilePath, &info) == 0 ? Int64(info.st_size) : 0
            return (FileSink(path: resumeData.partialFilePath, resumeOffset: offset), nil)
        }
        switch policy {
        case .fail:
            throw SluiceError(.resumeDataInvalid, "cannot resume: \(problem.detail)", request: request)
        case .startOver:
            // A missing file starts in a new temporary file; a changed one is written over.
            let path = problem.reason == .partialFileMissing ? FileSink.temporaryPath() : resumeData.partialFilePath
            return (FileSink(path: path, resumeOffset: 0), problem.reason)
        }
    }

    /// Ends a download: its file (the download's own, or one a layer's answer was copied into) moved where
    /// `destination` says, or the download's file removed (unless kept for resume data) when the task or
    /// the move failed.
    static func finishDownload(
        _ sink: FileSink, to destination: DownloadDestination, _ result: Result<(Completed, DeliveredBody), SluiceError>
    ) -> Result<DownloadResponse, SluiceError> {
        switch result {
        case .failure(var error):
            // A download that stopped part way keeps its file, and its error says how to resume it.
            if let resume = resumeData(after: error, in: sink) { error.resumeData = try? JSONEncoder().encode(resume) }
            sink.closeFile()
            if !sink.keepsPartialFile { unlink(sink.path) }
            return .failure(error)
        case .success(let (outcome, body)):
            sink.closeFile()
            guard case .file(let file) = body else { preconditionFailure("a download delivers a file") }
            if file.path != sink.path, !sink.keepsPartialFile { unlink(sink.path) }
            do throws(SluiceError) {
                let target = destination(file, outcome.response)
                try move(file.path, to: target)
                return .success(DownloadResponse(fileURL: target, response: outcome.response, request: outcome.request, metrics: outcome.metrics))
            } catch {
                unlink(file.path)
                return .failure(SluiceError(error.code, error.message, request: outcome.request, response: outcome.response))
            }
        }
    }

    /// The resume data for a download that failed with `error`, its partial file then kept: when the
    /// failure stopped the transfer part way (not a cancel, which has its own resume data, nor a file
    /// that could not be written), the response was the resource (200, or 206 continuing the file), some
    /// of its body is in the file, and the response names a validator (`ETag` or `Last-Modified`) a resume
    /// can check the resource against. `nil` otherwise: the file is removed as before.
    static func resumeData(after error: SluiceError, in sink: FileSink) -> ResumeData? {
        let resumable: Set<SluiceError.Code> = [
            .connectionLost, .idleTimedOut, .transferTooSlow, .resourceTimedOut, .transportFailed,
        ]
        guard resumable.contains(error.code), let request = error.request, let response = error.response,
            let validator = response.headers.first("ETag") ?? response.headers.first("Last-Modified"),
            let frozen = sink.freezeForResume()
        else { return nil }
        guard frozen.length > 0 else {
            sink.keepsPartialFile = false
            return nil
        }
        return ResumeData(
            url: request.url, headers: request.headers.dictionary, partialFilePath: frozen.path, validator: validator,
            partialFileLength: frozen.length, partialFileModified: ResumeData.FileTime(frozen.modified))
    }

    /// Moves a finished download into place: `rename` (atomic) on one file system, otherwise a copy
    /// next to the target and then `rename`.
    private static func move(_ path: String, to target: URL) throws(SluiceError) {
        var existing = stat()
        if lstat(target.path, &existing) == 0, (existing.st_mode & S_IFMT) != S_IFREG {
            // Never replace a directory, device, socket or link with a download.
            throw SluiceError(.downloadFailed, "\(target.path) exists and is not a regular file")
        }
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw SluiceError(.downloadFailed, "cannot create \(target.deletingLastPathComponent().path): \(error)")
        }
        if rename(path, target.path) == 0 { return }
        guard errno == EXDEV else {
            throw SluiceError(.downloadFailed, "cannot move the download to \(target.path): \(String(cString: strerror(errno)))")
        }
        let staging = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).sluice-partial")
        do {
            try? FileManager.default.removeItem(at: staging)
            try FileManager.default.copyItem(atPath: path, toPath: staging.path)
        } catch {
            throw SluiceError(.downloadFailed, "cannot copy the download to \(target.path): \(error)")
        }
        guard rename(staging.path, target.path) == 0 else {
            unlink(staging.path)
            throw SluiceError(.downloadFailed, "cannot move the download to \(target.path): \(String(cString: strerror(errno)))")
        }
        unlink(path)
    }

}
