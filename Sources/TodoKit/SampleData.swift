import Foundation

/// The to-dos of the demo (`todo --in-memory --sample`): a few tags, two shared places, one
/// to-do done, and titles with accents to search without them.
public enum SampleData {
    /// Adds the sample to-dos through the repositories, as a user would, oldest first so that
    /// the list shows them newest first.
    public static func load(into services: TodoServices) async throws {
        let home = try await services.tags.tag(titled: "home")
        let work = try await services.tags.tag(titled: "work")
        let errands = try await services.tags.tag(titled: "errands")
        let flore = LocationModel(latitude: 48.854, longitude: 2.3325, altitude: 35, placeName: "Café de Flore")
        let office = LocationModel(latitude: 47.3779, longitude: 8.5403, placeName: "Zürich office")
        let samples: [(title: String, tags: [TagModel], place: LocationModel?, done: Bool)] = [
            ("Renew the passport", [errands], nil, true),
            ("Water the plants", [home], nil, false),
            ("Write the quarterly report", [work], office, false),
            ("Meet Zoë for a crème brûlée", [], flore, false),
            ("Buy coffee beans at the café", [errands, home], flore, false),
            ("Review the Strata pull request", [work], office, false),
            ("Fix the bike's brakes", [home, errands], nil, false),
        ]
        for sample in samples {
            let todo = try await services.todos.add(title: sample.title, tagIds: sample.tags.map(\.id))
            if let place = sample.place {
                _ = try await services.todos.locate(id: todo.id, at: place)
            }
            if sample.done {
                _ = try await services.todos.complete(id: todo.id)
            }
        }
    }
}
