/* Threads allocate with new and release each other's blocks (a queue of shared_ptr and of
 * raw arrays handed across) while the main thread checks every guard: no false error, no
 * leak, a clean run.
 */
#include <atomic>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

struct Message {
    std::string text;
    std::vector<int> payload;
};

static std::mutex lock;
static std::queue<std::shared_ptr<Message>> messages;
static std::queue<int *> buffers;
static std::atomic<bool> done{false};

static void produce(int id)
{
    for (int i = 0; i < 2000; i++) {
        auto m = std::make_shared<Message>();
        m->text.assign(static_cast<size_t>(20 + i % 40), static_cast<char>('a' + id));
        m->payload.assign(static_cast<size_t>(i % 16), i);
        int *buffer = new int[1 + i % 32];
        std::lock_guard<std::mutex> hold(lock);
        messages.push(m);
        buffers.push(buffer);
    }
}

static void consume()
{
    for (;;) {
        std::shared_ptr<Message> m;
        int *buffer = nullptr;
        {
            std::lock_guard<std::mutex> hold(lock);
            if (!messages.empty()) {
                m = messages.front();
                messages.pop();
                buffer = buffers.front();
                buffers.pop();
            } else if (done) {
                return;
            }
        }
        delete[] buffer;
    }
}

int main()
{
    std::vector<std::thread> producers, consumers;
    for (int id = 0; id < 3; id++)
        producers.emplace_back(produce, id);
    for (int c = 0; c < 2; c++)
        consumers.emplace_back(consume);
    for (int round = 0; round < 20; round++)
        if (memtrack_check() != 0)
            return 1;
    for (auto &t : producers)
        t.join();
    done = true;
    for (auto &t : consumers)
        t.join();
    memtrack_stats_t st;
    memtrack_stats(&st);
    return st.errors == 0 && st.total_blocks > 3 * 2000 * 3 ? 0 : 1;
}
