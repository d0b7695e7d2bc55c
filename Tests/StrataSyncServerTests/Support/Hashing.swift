import Crypto
import Foundation

/// Lower-case hex SHA-256, the name of an asset.
func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}
