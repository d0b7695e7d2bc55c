// swift-format-ignore-file
import CoreData
import SwiftUI

class PortHookNote: NSManagedObject {
    @NSManaged var title: String?
}

extension PortHookNote {
    @objc override func awakeFromInsert() {
        super.awakeFromInsert()
        title = "Untitled"
    }

    override func validateForInsert() throws {
        try super.validateForInsert()
    }
}

struct PortNoteList: View {
    @FetchRequest(sortDescriptors: []) var notes: FetchedResults<PortHookNote>

    var body: some View { Text("\(notes.count)") }
}

func watch(_ note: PortHookNote) {
    let text = "@NSManaged in a string is not code, nor is #keyPath(PortHookNote.title)"
    _ = note.observe(\.title) { _, _ in print(text) }
}
