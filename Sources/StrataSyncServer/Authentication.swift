import Foundation
import Hummingbird
import JWTKit

/// The claims the server reads from a bearer token: who (`sub`), until when (`exp`), and for
/// which service (`aud`). Other claims are ignored.
public struct SyncTokenClaims: JWTPayload {
    public var sub: SubjectClaim
    public var exp: ExpirationClaim
    public var aud: AudienceClaim

    public init(subject: String, expires: Date, audience: String) {
        sub = SubjectClaim(value: subject)
        exp = ExpirationClaim(value: expires)
        aud = AudienceClaim(value: [audience])
    }

    /// Signature checks come first (jwt-kit); this checks expiry. The audience is checked by
    /// `TokenVerifier`, which knows the expected one.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// Checks bearer tokens against the configured keys: HS256 with a shared secret, and/or ES256
/// or RS256 with a public key (the matching private key stays with whoever issues tokens).
struct TokenVerifier: Sendable {
    let keys: JWTKeyCollection
    let audience: String

    init(_ configuration: JWTConfiguration) async throws {
        let keys = JWTKeyCollection()
        var any = false
        if let secret = configuration.hmacSecret, !secret.isEmpty {
            // jwt-kit asserts this (a crash in debug builds): refuse it as configuration instead.
            guard secret.utf8.count >= 32 else {
                throw SyncServerError.badConfiguration("The JWT secret must be at least 32 bytes (HS256).")
            }
            await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
            any = true
        }
        if let pem = configuration.publicKeyPEM, !pem.isEmpty {
            if let key = try? ES256PublicKey(pem: pem) {
                await keys.add(ecdsa: key)
            } else if let key = try? Insecure.RSA.PublicKey(pem: pem) {
                await keys.add(rsa: key, digestAlgorithm: .sha256)
            } else {
                throw SyncServerError.badConfiguration(
                    "The JWT public key is neither a P-256 (ES256) nor an RSA (RS256, 2048 bits or more) public key in PEM.")
            }
            any = true
        }
        guard any else {
            throw SyncServerError.badConfiguration(
                "No JWT key: give --jwt-secret (HS256) and/or --jwt-public-key (ES256 or RS256).")
        }
        self.keys = keys
        self.audience = configuration.audience
    }

    /// The token's user; 401 for no token, a bad signature, an expired token or another
    /// audience. The message says which, since none of it helps an attacker.
    func user(for request: Request) async throws -> String {
        guard let header = request.headers[.authorization] else {
            throw SyncError(.unauthorized, "Send a token: Authorization: Bearer <JWT>.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty, parts[1].utf8.count <= 16 * 1024 else {
            throw SyncError(.unauthorized, "The Authorization header is not \"Bearer <JWT>\".")
        }
        let claims: SyncTokenClaims
        do {
            claims = try await keys.verify(String(parts[1]), as: SyncTokenClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            throw SyncError(.unauthorized, "The token has expired.")
        } catch {
            throw SyncError(.unauthorized, "The token's signature or form is not valid.")
        }
        guard claims.aud.value.contains(audience) else {
            throw SyncError(.unauthorized, "The token is not for this server (aud).")
        }
        let subject = claims.sub.value
        guard (1...255).contains(subject.utf8.count), !subject.utf8.contains(0) else {
            throw SyncError(.unauthorized, "The token's subject is not usable.")
        }
        return subject
    }
}

/// Requests per second per user, counted on this instance (a token bucket per user): a user
/// past the rate gets 429 with `Retry-After`. Buckets of users not seen for a minute are
/// dropped, so the table stays as small as the set of active users.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let rate: Double
    private let buckets = Locked([String: Bucket]())
    private let lastSweep = Locked(ContinuousClock.now)

    init(requestsPerSecond: Double) {
        rate = requestsPerSecond
    }

    /// Nil when the request may go on; else the seconds to wait.
    func retryAfter(for user: String) -> Int? {
        guard rate > 0 else { return nil }
        let now = ContinuousClock.now
        sweep(now)
        return buckets.withLock { buckets -> Int? in
            var bucket = buckets[user] ?? Bucket(tokens: rate, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(rate, bucket.tokens + seconds * rate)
            bucket.updated = now
            defer { buckets[user] = bucket }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    private func sweep(_ now: ContinuousClock.Instant) {
        let due = lastSweep.withLock { last -> Bool in
            guard now - last > .seconds(60) else { return false }
            last = now
            return true
        }
        guard due else { return }
        buckets.withLock { buckets in
            buckets = buckets.filter { now - $0.value.updated < .seconds(60) }
        }
    }
}
