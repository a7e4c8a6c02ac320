/// How a download resumed from ``ResumeData`` began.
public enum DownloadResumption: Sendable, Hashable {
    /// Why a resumed download started over.
    public enum StartOverReason: Sendable, Hashable {
        /// The partial file was gone (with ``ResumeData/PartialFilePolicy/startOver``).
        case partialFileMissing
        /// The partial file had another length or modification time than the resume data says (with
        /// ``ResumeData/PartialFilePolicy/startOver``).
        case partialFileChanged
        /// The server sent the whole resource (`200`): it ignores ranges, or the resource changed
        /// since the validator was taken.
        case serverSentWholeBody
    }

    /// The partial file was continued from byte `fromByte` (a `206`), or was whole already (a `416`).
    case continued(fromByte: Int64)
    /// The file was downloaded again from its first byte.
    case startedOver(StartOverReason)
}
