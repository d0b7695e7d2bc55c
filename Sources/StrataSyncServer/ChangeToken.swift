import Foundation

/// The opaque `since`/`nextToken` of pulls: which zone, up to which sequence number, in which
/// epoch. Clients only store and send it back; base64url JSON keeps it readable when
/// debugging, and the server checks every part, so a forged or garbled token is a 400, a
/// token of another zone a 400, and one of an older epoch a 410.
struct ChangeToken: Codable, Equatable {
    var zone: String
    var sequence: Int64
    var epoch: Int64
    /// Set on the pages of a pull that started from nothing: the tombstone horizon when it
    /// started. Such a pull holds no record yet, so it may pass below the horizon, as long as
    /// no tombstone is purged before it ends.
    var fullPullHorizon: Int64?

    private enum CodingKeys: String, CodingKey {
        case zone = "z"
        case sequence = "s"
        case epoch = "e"
        case fullPullHorizon = "h"
    }

    /// The same token always reads the same (sorted keys), so clients may compare tokens.
    var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The token written in `text`, or a 400 naming what is wrong.
    init(decoding text: String) throws {
        guard text.count <= 1024 else { throw SyncError.badRequest("The since token is too long.") }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let token = try? JSONDecoder().decode(ChangeToken.self, from: data),
            token.sequence >= 0, token.epoch >= 1
        else { throw SyncError.badRequest("The since token is not one this server issued.") }
        self = token
    }

    init(zone: String, sequence: Int64, epoch: Int64, fullPullHorizon: Int64? = nil) {
        self.zone = zone
        self.sequence = sequence
        self.epoch = epoch
        self.fullPullHorizon = fullPullHorizon
    }
}
