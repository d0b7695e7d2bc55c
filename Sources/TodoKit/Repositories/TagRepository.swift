import Foundation

/// What the interfaces ask of tags. A protocol for the same reason as `TodoRepository`.
public protocol TagRepository: Sendable {
    /// The tag; throws `TodoKitError.tagNotFound`.
    func tag(id: UUID) async throws -> TagModel
    /// Every tag, by title.
    func allTags() async throws -> [TagModel]
    /// How many to-dos carry each tag, by tag id (tags no to-do carries may be absent).
    func todoCounts() async throws -> [UUID: Int]
    /// The tag with the title (ignoring case and accents), made if there is none, so that
    /// tagging by a new word just works.
    func tag(titled title: String) async throws -> TagModel
    /// Gives the tag a new title; throws `duplicateTagTitle` if another tag has it.
    func rename(id: UUID, to title: String) async throws -> TagModel
    /// Deletes the tag; the to-dos that carried it stay.
    func delete(id: UUID) async throws
    /// The tag a person named: by title (ignoring case and accents) or by an unambiguous
    /// start of its id.
    func resolve(_ reference: String) async throws -> TagModel
}

/// The tag repository on the local store alone.
public final class LocalTagRepository: TagRepository {
    private let tagDAO: TagDAO

    public init(persistence: PersistenceController) {
        tagDAO = TagDAO(persistence: persistence)
    }

    public func tag(id: UUID) async throws -> TagModel {
        guard let tag = try await tagDAO.find(id: id) else {
            throw TodoKitError.tagNotFound(id)
        }
        return tag
    }

    public func allTags() async throws -> [TagModel] {
        var tags: [TagModel] = []
        var page = 1
        while true {
            let batch = try await tagDAO.findMany(page: page, pageSize: 500)
            tags += batch
            if batch.count < 500 { return tags }
            page += 1
        }
    }

    public func todoCounts() async throws -> [UUID: Int] {
        try await tagDAO.todoCounts()
    }

    public func tag(titled title: String) async throws -> TagModel {
        let title = try LocalTodoRepository.checked(title)
        if let tag = try await tagDAO.find(title: title) {
            return tag
        }
        return try await tagDAO.create(title: title)
    }

    public func rename(id: UUID, to title: String) async throws -> TagModel {
        var tag = try await tag(id: id)
        let title = try LocalTodoRepository.checked(title)
        if let other = try await tagDAO.find(title: title), other.id != id {
            throw TodoKitError.duplicateTagTitle(other.title)
        }
        tag.title = title
        return try await tagDAO.update(tag)
    }

    public func delete(id: UUID) async throws {
        try await tagDAO.delete(id: id)
    }

    public func resolve(_ reference: String) async throws -> TagModel {
        if let tag = try await tagDAO.find(title: reference) {
            return tag
        }
        do {
            return try await tag(id: IdReference.resolve(reference, among: try await tagDAO.allIds(), kind: "tag"))
        } catch TodoKitError.notAnId {
            throw TodoKitError.noMatch(kind: "tag", reference: reference)
        }
    }
}
