// tg::OrderedDict<Key, Value>: a map that remembers insertion order, as LibTorch's
// torch::OrderedDict (what Module::named_parameters() returns). Items are iterated in the order
// they were inserted; keys are unique. Invariant: index_[items_[i].key()] == i for every i.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"

namespace tg {

template <typename Key, typename Value>
class OrderedDict {
 public:
  // One entry: its key and value, read as item.key() and item.value() (or *item, item->).
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    Value& operator*() noexcept { return pair_.second; }
    const Value& operator*() const noexcept { return pair_.second; }
    Value* operator->() noexcept { return &pair_.second; }
    const Value* operator->() const noexcept { return &pair_.second; }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using iterator = typename std::vector<Item>::iterator;
  using const_iterator = typename std::vector<Item>::const_iterator;

  // `key_description` names the keys in error messages ("Parameter", "Submodule").
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    for (const Item& item : items) insert(item.key(), item.value());
  }

  const std::string& key_description() const noexcept { return key_description_; }

  // Inserts a new key; an existing key is an error (use update or operator[] to overwrite).
  template <typename V>
  Value& insert(const Key& key, V&& value) {
    TG_CHECK(index_.count(key) == 0, "[OrderedDict] ", key_description_, " '", key, "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(key, Value(std::forward<V>(value)));
    return items_.back().value();
  }
  // Inserts each of `other`'s items, overwriting the values of keys already present.
  void update(const OrderedDict& other) {
    for (const Item& item : other) {
      if (Value* existing = find(item.key())) {
        *existing = item.value();
      } else {
        insert(item.key(), item.value());
      }
    }
  }

  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  Value& operator[](const Key& key) { return at(key); }
  const Value& operator[](const Key& key) const { return at(key); }
  Value& at(const Key& key) {
    Value* value = find(key);
    TG_CHECK_INDEX(value != nullptr, "[OrderedDict] ", key_description_, " '", key, "' is not defined");
    return *value;
  }
  const Value& at(const Key& key) const { return const_cast<OrderedDict*>(this)->at(key); }

  // Removes `key` and returns its value.
  Value pop(const Key& key) {
    auto it = index_.find(key);
    TG_CHECK_INDEX(it != index_.end(), "[OrderedDict] ", key_description_, " '", key, "' is not defined");
    const size_t position = it->second;
    Value value = std::move(items_[position].value());
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
    index_.erase(it);
    for (auto& [k, i] : index_) {
      if (i > position) --i;
    }
    return value;
  }

  Item& front() { return items_.at(0); }
  Item& back() { return items_.at(items_.size() - 1); }
  const Item& operator[](size_t index) const { return items_.at(index); }

  std::vector<Key> keys() const {
    std::vector<Key> result;
    result.reserve(items_.size());
    for (const Item& item : items_) result.push_back(item.key());
    return result;
  }
  std::vector<Value> values() const {
    std::vector<Value> result;
    result.reserve(items_.size());
    for (const Item& item : items_) result.push_back(item.value());
    return result;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> result;
    result.reserve(items_.size());
    for (const Item& item : items_) result.push_back(item.pair());
    return result;
  }
  const std::vector<Item>& items() const noexcept { return items_; }

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }

 private:
  std::string key_description_;
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace tg
