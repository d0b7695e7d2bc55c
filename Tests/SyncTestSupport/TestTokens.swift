import Foundation
import JWTKit
import StrataSyncServer

/// Signs bearer tokens the way an identity service would, for tests and the load program.
public enum TestTokens {
    /// The HS256 secret test servers trust.
    public static let secret = "strata-sync-test-secret-0123456789abcdef"
    public static let audience = "strata-sync"

    /// A token for `user`, valid for an hour unless told otherwise.
    public static func token(
        for user: String, secret: String = secret, expires: Date = Date().addingTimeInterval(3600),
        audience: String = audience
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(SyncTokenClaims(subject: user, expires: expires, audience: audience))
    }
}
