import Foundation

extension Notification.Name {
    /// Posted by a ``NetworkReachabilityManager`` for each status it reports, on the queue given to
    /// ``NetworkReachabilityManager/startMonitoring(queue:onChange:)``, after the closure has run.
    ///
    /// The notification's object is the manager; its user info holds the
    /// ``NetworkReachabilityStatus`` under ``NetworkReachabilityManager/statusUserInfoKey``. The
    /// counterpart of AFNetworking's `AFNetworkingReachabilityDidChangeNotification`.
    public static let sluiceNetworkReachabilityDidChange = Notification.Name("SluiceNetworkingReachabilityDidChangeNotification")
}

extension NetworkReachabilityManager {
    /// The user-info key of `Notification.Name.sluiceNetworkReachabilityDidChange` under which the
    /// ``NetworkReachabilityStatus`` is stored (`"SluiceNetworkingReachabilityNotificationStatusItem"`).
    public static let statusUserInfoKey = "SluiceNetworkingReachabilityNotificationStatusItem"

    /// The status a reachability notification carries, or `nil` when it carries none.
    ///
    /// - Parameter notification: A `Notification.Name.sluiceNetworkReachabilityDidChange` notification.
    public static func status(from notification: Notification) -> NetworkReachabilityStatus? {
        notification.userInfo?[statusUserInfoKey] as? NetworkReachabilityStatus
    }
}
