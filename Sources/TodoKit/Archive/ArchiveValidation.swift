import Foundation

extension TodoArchive {
    /// Every rule the archive breaks, in words with the place in the file; empty when it can
    /// be imported. Import checks these before it touches the store, so that a bad file
    /// changes nothing, and reports them all at once.
    public func problems() -> [String] {
        var problems: [String] = []
        if version != Self.currentVersion {
            problems.append("version \(version) is not supported (this program reads version \(Self.currentVersion))")
        }
        problems += duplicates(tags.map(\.id), in: "tags")
        problems += duplicates(locations.map(\.id), in: "locations")
        problems += duplicates(todos.map(\.id), in: "todos")
        for (index, tag) in tags.enumerated() where tag.title.trimmingCharacters(in: .whitespaces).isEmpty {
            problems.append("tags[\(index)] has an empty title")
        }
        for (index, location) in locations.enumerated() {
            if let problem = location.problem {
                problems.append("locations[\(index)]: \(problem)")
            }
        }
        let tagIds = Set(tags.map(\.id))
        let locationIds = Set(locations.map(\.id))
        for (index, todo) in todos.enumerated() {
            if todo.title.trimmingCharacters(in: .whitespaces).isEmpty {
                problems.append("todos[\(index)] has an empty title")
            }
            for tagId in todo.tagIds where !tagIds.contains(tagId) {
                problems.append("todos[\(index)] names the tag \(tagId.uuidString.lowercased()), which the file does not hold")
            }
            if Set(todo.tagIds).count != todo.tagIds.count {
                problems.append("todos[\(index)] names a tag twice")
            }
            if let locationId = todo.locationId, !locationIds.contains(locationId) {
                problems.append(
                    "todos[\(index)] names the location \(locationId.uuidString.lowercased()), which the file does not hold")
            }
        }
        return problems
    }

    private func duplicates(_ ids: [UUID], in list: String) -> [String] {
        var seen = Set<UUID>()
        var problems: [String] = []
        for (index, id) in ids.enumerated() where !seen.insert(id).inserted {
            problems.append("\(list)[\(index)] repeats the id \(id.uuidString.lowercased())")
        }
        return problems
    }
}
