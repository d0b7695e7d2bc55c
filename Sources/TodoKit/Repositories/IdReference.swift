import Foundation

/// Ids as people type them: any unambiguous start of the id, as `git` takes commit hashes.
/// Lists show the shortest start (at least eight digits) that tells every id apart.
public enum IdReference {
    /// The fewest digits the lists show.
    public static let minimumLength = 8

    /// The one id among `ids` whose text starts with `reference` (ignoring case and hyphens).
    /// Throws `notAnId` for text that is no start of an id, `noMatch` when none matches and
    /// `ambiguous` when several do.
    public static func resolve(_ reference: String, among ids: [UUID], kind: String) throws -> UUID {
        let digits = reference.lowercased().filter { $0 != "-" }
        guard !digits.isEmpty, digits.count <= 32, digits.allSatisfy(\.isHexDigit) else {
            throw TodoKitError.notAnId(reference)
        }
        let matches = ids.filter { hexDigits(of: $0).hasPrefix(digits) }
        switch matches.count {
        case 0: throw TodoKitError.noMatch(kind: kind, reference: reference)
        case 1: return matches[0]
        default:
            throw TodoKitError.ambiguous(
                kind: kind, reference: reference, matches: matches.sorted { $0.uuidString < $1.uuidString })
        }
    }

    /// The number of characters of the id text (hyphens counted) that tell every id apart.
    public static func shortLength(for ids: [UUID]) -> Int {
        let texts = ids.map { $0.uuidString.lowercased() }.sorted()
        var length = minimumLength
        // Sorted, the longest common start is always between neighbours.
        for (left, right) in zip(texts, texts.dropFirst()) {
            let common = zip(left, right).prefix { $0 == $1 }.count
            length = max(length, common + 1)
        }
        return min(length, 36)
    }

    /// The start of the id's lowercase text that lists show.
    public static func short(_ id: UUID, length: Int = minimumLength) -> String {
        String(id.uuidString.lowercased().prefix(length))
    }

    private static func hexDigits(of id: UUID) -> String {
        id.uuidString.lowercased().filter { $0 != "-" }
    }
}
