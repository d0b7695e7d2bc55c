import Foundation
import Strata

/// CloudKit's error domain.
public let CKErrorDomain = SyncServerError.domain

/// A CloudKit failure: what the sync server answered, or why it could not be reached, with
/// CloudKit's codes.
///
/// ```swift
/// do { _ = try await database.perform(query, inZoneWith: nil) }
/// catch let error as CKError where error.code == .notAuthenticated { … }
/// ```
public struct CKError: Error, CustomStringConvertible, @unchecked Sendable {
    /// CloudKit's codes (the ones a sync server's answers map to, and a few more apps test).
    public enum Code: Int, Sendable {
        case internalError = 1
        case partialFailure = 2
        case networkUnavailable = 3
        case networkFailure = 4
        case badContainer = 5
        case serviceUnavailable = 6
        case requestRateLimited = 7
        case missingEntitlement = 8
        case notAuthenticated = 9
        case permissionFailure = 10
        case unknownItem = 11
        case invalidArguments = 12
        case serverRecordChanged = 14
        case serverRejectedRequest = 15
        case changeTokenExpired = 21
        case zoneNotFound = 26
        case limitExceeded = 27
        case serverResponseLost = 34
    }

    public let code: Code
    /// The error as `NSError`, with the server's message and details in its user info.
    public let errorUserInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.errorUserInfo = userInfo
    }

    /// The CloudKit error an `NSError` of CloudKit's domain is; an error of another domain is
    /// an internal error wrapping it.
    public init(_ error: any Error) {
        if let error = error as? CKError {
            self = error
            return
        }
        let error = error as NSError
        if error.domain == CKErrorDomain {
            self.init(Code(rawValue: error.code) ?? .internalError, userInfo: error.userInfo)
        } else {
            self.init(
                .internalError, userInfo: [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: error.localizedDescription])
        }
    }

    /// Seconds to wait before retrying, when the server said.
    public var retryAfterSeconds: Double? { errorUserInfo[SyncServerError.retryAfterKey] as? Double }

    public var localizedDescription: String {
        errorUserInfo[NSLocalizedDescriptionKey] as? String ?? "CloudKit error \(code.rawValue)"
    }

    public var description: String { "CKError(\(code)): \(localizedDescription)" }
}
